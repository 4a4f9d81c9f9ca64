"""The command lines ``redline`` and ``summarize``, the top of the stack: argument parsing, what
is printed, exit codes; every step they run is a function of the packages below.

``common`` holds what the commands share (the usage error, exit codes, reading a reply, output
target checks); ``redline`` and ``summarize`` are the two programs' ``main``; ``review`` and
``stats`` are the arguments and printing of those two subcommands of ``redline``.
"""
