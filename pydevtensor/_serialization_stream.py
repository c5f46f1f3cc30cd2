"""The streams of save() and load(): where the archive goes and where it is read from.

save() writes an archive into a file object front to back, never seeking back (zipfile's
streaming mode: each member's sizes follow its data, APPNOTE 4.3.9), so that a file
opened in append mode, a pipe, or a stream holding data before the archive gets an
archive that reads back; offsets in it count from the archive's first byte.

load() reads the archive that starts at the stream's position, which other archives
may follow (save() called twice on one stream): zipfile looks for the end record at
the end of what it is given, so it is given the bytes from the position on, and then,
while the archive it finds starts after the position (a later one), the bytes up to
that archive's start.  Afterwards the stream is left just after the archive read.
"""
import errno
import io
import struct
import zipfile

_END = b"PK\x05\x06"  # the end of central directory record (APPNOTE 4.3.16)
_END_SIZE = 22
_MAX_COMMENT = 0xFFFF


class WriteOnly:
    """A file seen as a stream: zipfile then writes its members one after another with
    their sizes after them, instead of seeking back (APPNOTE 4.3.9)."""

    def __init__(self, fh):
        self.write = fh.write
        self.flush = getattr(fh, "flush", None) or (lambda: None)


class _Window:
    """The bytes [start, stop) of fh as a read-only file of their own (positions from 0).
    Each read seeks fh first, so zipfile's member readers may share it."""

    def __init__(self, fh, start, stop):
        self._fh, self._start, self._size, self._pos = fh, start, stop - start, 0

    def seekable(self):
        return True

    def tell(self):
        return self._pos

    def seek(self, offset, whence=0):
        pos = offset + (0, self._pos, self._size)[whence]
        if pos < 0:  # as a file says it (zipfile tries this on a file shorter than 22 bytes)
            raise OSError(errno.EINVAL, f"negative seek position {pos}")
        self._pos = pos
        return pos

    def read(self, n=-1):
        left = max(self._size - self._pos, 0)
        n = left if n is None or n < 0 else min(n, left)
        self._fh.seek(self._start + self._pos)
        data = self._fh.read(n)
        self._pos += len(data)
        return data


def _end_of(window):
    """Where the archive in window ends: after its end record (the one zipfile took, the
    last in the final 64 KiB) and its comment."""
    size = window.seek(0, 2)
    tail = max(size - _END_SIZE - _MAX_COMMENT, 0)
    window.seek(tail)
    data = window.read()
    at = data.rfind(_END)
    comment = struct.unpack("<H", data[at + 20:at + 22])[0]
    return min(tail + at + _END_SIZE + comment, size)


def archive_at(fh, bad):
    """(ZipFile, end): the archive that starts at fh's position, and the position just
    after it.  Raises bad(text) when the position is inside an archive; zipfile's
    errors (BadZipFile...) when no archive is there."""
    start = fh.tell()
    stop = fh.seek(0, 2)
    while True:
        window = _Window(fh, start, stop)
        zf = zipfile.ZipFile(window)
        first = min((info.header_offset for info in zf.infolist()), default=zf.start_dir)
        if first == 0:
            return zf, start + _end_of(window)
        zf.close()
        if not 0 < first < stop - start:
            raise bad(f"does not start at its position {start}: that is inside an archive "
                      f"(seek to where save() began writing)")
        stop = start + first  # a later archive: read up to its start


def refuse_text(f, fn, mode):
    """TypeError for a file opened in text mode (its write() takes str; its read() decodes
    the archive's bytes as text, which blamed the file as damaged)."""
    if isinstance(f, io.TextIOBase):
        raise TypeError(f"{fn}(): {f!r} is a text file; open it in binary mode ({mode!r})")
