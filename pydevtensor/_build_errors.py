"""The error `import pydevtensor` raises when the compiled extension is missing.

The usual cause: ``pip install .`` (not ``-e``) put a built copy in site-packages,
and Python is started inside the source tree, whose ``pydevtensor/`` folder (no
compiled ``_C``) comes first on sys.path.  Python's own message then blames "a
circular import", which sends people the wrong way.
"""
import glob
import os
import sys


def _installed_copy(root):
    """A built pydevtensor elsewhere on sys.path (the one the user meant), or None."""
    for entry in sys.path:
        entry = os.path.abspath(entry or os.curdir)
        if entry != root and glob.glob(os.path.join(entry, "pydevtensor", "_C.*")):
            return os.path.join(entry, "pydevtensor")
    return None


def missing_extension_error(package_dir, err):
    """An ImportError saying where pydevtensor was imported from and what to do."""
    package_dir = os.path.abspath(package_dir)
    root = os.path.dirname(package_dir)
    built = glob.glob(os.path.join(package_dir, "_C.*"))
    source_tree = os.path.exists(os.path.join(root, "setup.py"))
    if built:  # it is there but does not load: a broken or foreign build
        why = f"its compiled extension {built[0]} does not load ({err})"
        fix = ("rebuild it: pip install -e . from the source tree (or pip install . and run "
               "from elsewhere)")
    elif source_tree:
        installed = _installed_copy(root)
        other = f"the installed copy in {installed}" if installed else "any installed copy"
        why = (f"this is the source tree ({root}), which has no compiled extension; Python "
               f"found it before {other} because you are running inside the tree")
        fix = ("run Python from another directory (cd ..) to use the installed copy, or "
               "build in place with pip install -e . (an editable install works from here too)")
    else:
        why = f"the compiled extension _C is not in {package_dir}"
        fix = "reinstall pydevtensor (pip install --force-reinstall pydevtensor)"
    return ImportError(f"cannot import pydevtensor from {package_dir}: {why}.  To fix it, {fix}.",
                       name="pydevtensor._C")
