"""Short, complete programs that wire a model API to redline (not installed; tested offline by
tests/test_examples.py against recorded replies)."""
