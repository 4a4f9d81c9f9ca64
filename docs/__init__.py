"""The documentation: Markdown pages for mkdocs, and :mod:`docs.gen`, which writes the generated ones."""
