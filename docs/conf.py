"""Sphinx configuration of pydevtensor's API reference (docs/, built by .ci/docs with
warnings as errors: `python -m sphinx -W -b html docs build/docs`)."""
import pydevtensor

project = "pydevtensor"
author = "the pydevtensor authors"
copyright = "2026, the pydevtensor authors"
version = release = pydevtensor.__version__

# napoleon renders the numpydoc sections (Parameters, Returns, Raises, Examples) of the
# docstrings; it ships with Sphinx, so the build needs nothing more.
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autosummary_generate = True
autosummary_generate_overwrite = True
# The submodules' pages list what their __all__ names, imported from where it is defined
# (nn.Linear lives in nn/layers.py); the class template renders every documented method.
autosummary_imported_members = True
autosummary_ignore_module_all = False
# The parameter types are in each docstring's Parameters section; the annotations of nn
# and optim would add ambiguous cross-references (``device``: pydevtensor.device or
# pydevtensor.cuda.device).
autodoc_typehints = "none"
templates_path = ["_templates"]
autodoc_default_options = {}
# The C functions' older one-line docstrings are plain text ("|input|", "*size"), not
# reStructuredText; those written in numpydoc form (with an "Examples" section) are.
autodoc_docstring_signature = True
exclude_patterns = ["_build", "api/generated/*.md"]
html_theme = "alabaster"


def _escape_plain_text(app, what, name, obj, options, lines):
    """The C extension's one-line docstrings are plain text: "|input|", "self ** exponent"
    and "*size" must not be read as reStructuredText markup.  Docstrings in numpydoc form
    (an "Examples" section) are reStructuredText and left as they are."""
    if type(obj).__name__ not in ("builtin_function_or_method", "method_descriptor",
                                  "getset_descriptor", "wrapper_descriptor"):
        return
    if "Examples" in lines and any(line.startswith("-----") for line in lines):
        return
    for i, line in enumerate(lines):
        lines[i] = line.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")


def setup(app):
    # Before napoleon (priority 500) turns the sections into fields.
    app.connect("autodoc-process-docstring", _escape_plain_text, priority=400)
