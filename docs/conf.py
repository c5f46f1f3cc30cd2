"""Sphinx configuration of pydevtensor's API reference (docs/, built by .ci/docs with
warnings as errors: `python -m sphinx -W -b html docs build/docs`)."""
import pydevtensor

project = "pydevtensor"
author = "the pydevtensor authors"
copyright = "2026, the pydevtensor authors"
version = release = pydevtensor.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary"]
autosummary_generate = True
autosummary_generate_overwrite = True
autodoc_default_options = {"members": False}
# The C functions' docstrings are plain text ("|input|", "*size"), not reStructuredText.
autodoc_docstring_signature = True
exclude_patterns = ["_build", "api/generated/*.md"]
html_theme = "alabaster"


def _escape_plain_text(app, what, name, obj, options, lines):
    """The C extension's docstrings are plain text: "|input|", "self ** exponent" and
    "*size" must not be read as reStructuredText markup."""
    if type(obj).__name__ not in ("builtin_function_or_method", "method_descriptor",
                                  "getset_descriptor", "wrapper_descriptor"):
        return
    for i, line in enumerate(lines):
        lines[i] = line.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")


def setup(app):
    app.connect("autodoc-process-docstring", _escape_plain_text)
