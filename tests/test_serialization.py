"""save() and load() under failure: atomic saves, crafted and malformed files, and
files larger than the memory limit (issue 14)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import pydevtensor as pdt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_save_that_fails_midway_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "w.params"
    pdt.save({"w": pdt.arange(10)}, path)
    before = path.read_bytes()
    os.chmod(path, 0o640)

    def broken_savez(fh, **arrays):
        fh.write(b"PK\x03\x04 half a zip file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(OSError, match="No space left"):
        pdt.save({"w": pdt.zeros(10)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["w.params"]  # no temporary file left behind
    monkeypatch.undo()
    pdt.save({"w": pdt.ones(3)}, path)
    assert pdt.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == ["w.params"]
    assert os.stat(path).st_mode & 0o777 == 0o640  # the permissions are kept


def test_save_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real"
    pdt.save(pdt.zeros(2), real)
    (tmp_path / "link").symlink_to(real)
    pdt.save(pdt.ones(2), tmp_path / "link")
    assert (tmp_path / "link").is_symlink() and pdt.load(real).tolist() == [1.0, 1.0]


def test_kill_9_in_the_middle_of_a_large_save_leaves_the_old_file_loadable(tmp_path):
    path = tmp_path / "big.params"
    n = 2**24  # 64 MiB of float32
    pdt.save(pdt.zeros(n), path)
    old = os.stat(path)
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import pydevtensor as pdt
        t = pdt.ones({n})
        while True:
            pdt.save(t, {str(path)!r})
    """)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = os.stat(path)
            others = [p for p in os.listdir(tmp_path) if p != path.name]
            if others or (st.st_size, st.st_ino, st.st_mtime_ns) != (
                    old.st_size, old.st_ino, old.st_mtime_ns):
                break  # the child is writing
            time.sleep(0.0005)
        else:
            pytest.fail("the child never started writing")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    t = pdt.load(path)  # the old file, or the new one if the kill came after the rename
    assert tuple(t.shape) == (n,)
    assert float(t.sum()) in (0.0, float(n))
