"""save() into streams of every kind, and load() of the archive at a stream's position
(_serialization_stream.py)."""
import io

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.serialization import FormatError


def _np(t):
    return t.cpu().numpy()


class Pipe(io.RawIOBase):
    """A stream that can only be written, as a pipe or a socket: tell() and seek() fail."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.data += b
        return len(b)

    def seekable(self):
        return False

    def tell(self):
        raise OSError(29, "Illegal seek")

    def seek(self, *args):
        raise OSError(29, "Illegal seek")


def test_save_in_append_mode_writes_a_file_that_loads(tmp_path, device):
    """In append mode every write lands at the end: zipfile's seeks back to fill in the
    sizes wrote them after the archive, and load() refused the file."""
    path = tmp_path / "ckpt.pt"
    a, b = pdt.arange(3, device=device), pdt.ones(2, 2, device=device)
    for obj in (a, {"w": b, "epoch": 3}):
        with open(path, "ab") as fh:
            pdt.save(obj, fh)
    first = pdt.load(path)  # a path: the archive at its start
    assert first.device == a.device
    np.testing.assert_array_equal(_np(first), np.arange(3))
    with open(path, "rb") as fh:
        np.testing.assert_array_equal(_np(pdt.load(fh)), np.arange(3))
        second = pdt.load(fh)  # the next archive, from where the first ended
        assert fh.tell() == path.stat().st_size
    assert second["epoch"] == 3
    np.testing.assert_array_equal(_np(second["w"]), np.ones((2, 2)))


def test_save_into_a_stream_that_cannot_seek(device):
    pipe = Pipe()
    pdt.save({"w": pdt.arange(4.0, device=device), "n": [1, "a"]}, pipe)
    back = pdt.load(io.BytesIO(bytes(pipe.data)))
    np.testing.assert_array_equal(_np(back["w"]), np.arange(4.0))
    assert back["n"] == [1, "a"]


def test_load_reads_the_archive_at_the_streams_position(device):
    """Two saves into one stream: each load() reads the archive at the position and
    leaves the stream after it (it read the last archive of the stream)."""
    buf = io.BytesIO(b"header")
    buf.seek(0, 2)
    pdt.save(pdt.arange(3, device=device), buf)
    middle = buf.tell()
    pdt.save(pdt.ones(2, device=device), buf)
    buf.write(b"trailer")
    buf.seek(6)
    np.testing.assert_array_equal(_np(pdt.load(buf)), np.arange(3))
    assert buf.tell() == middle
    np.testing.assert_array_equal(_np(pdt.load(buf)), np.ones(2))
    assert buf.read() == b"trailer"
    buf.seek(middle)
    np.testing.assert_array_equal(_np(pdt.load(buf)), np.ones(2))


def test_load_inside_an_archive_raises():
    buf = io.BytesIO()
    pdt.save({"a": pdt.arange(3), "b": pdt.zeros(3)}, buf)
    inner = buf.getvalue().index(b"PK\x03\x04", 1)  # the second member's header
    for at in (inner, 10):
        buf.seek(at)
        with pytest.raises(FormatError, match=f"load\\(\\): .*(position {at}: that is "
                                              f"inside an archive|not a readable .npz)"):
            pdt.load(buf)
    buf.seek(0, 2)
    with pytest.raises(FormatError, match="not a readable .npz"):
        pdt.load(buf)  # at the end: nothing there
