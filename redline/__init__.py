"""The document side of the pipeline: load a .docx safely, flatten it into an offset-mapped
view, locate a model's anchors, and write the edits as native Word tracked changes."""
