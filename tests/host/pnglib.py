# SPDX-License-Identifier: GPL-2.0
"""Render an SVG with a real renderer (librsvg's rsvg-convert) and read the
pixels back, for tests that assert what a chart shows.

    img = render('chart.svg')          # an Image
    img.rgb(x, y)                      # (r, g, b) over white
    img.near(x, y, '#1f77b4', radius)  # a pixel of about that colour nearby

A PNG reader of its own (8-bit RGB or RGBA, not interlaced: what
rsvg-convert writes), so the tests need no imaging library.
"""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib


class Image:
    def __init__(self, width, height, bpp, rows):
        self.width, self.height, self.bpp, self.rows = width, height, bpp, rows

    def rgb(self, x, y):
        x, y = int(round(x)), int(round(y))
        if not (0 <= x < self.width and 0 <= y < self.height):
            return (255, 255, 255)
        row, i = self.rows[y], x * self.bpp
        r, g, b = row[i], row[i + 1], row[i + 2]
        if self.bpp == 4:               # composite over white
            a = row[i + 3]
            r, g, b = (c * a // 255 + 255 - a for c in (r, g, b))
        return (r, g, b)

    def near(self, x, y, color, radius=4, tol=40):
        """A pixel within @radius of (x, y) within @tol of @color."""
        want = parse_color(color)
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                if dx * dx + dy * dy <= radius * radius and \
                        close(self.rgb(x + dx, y + dy), want, tol):
                    return True
        return False

    def count(self, x0, y0, x1, y1, color, tol=40):
        """Pixels of about @color in the box [x0, x1) x [y0, y1)."""
        want = parse_color(color)
        return sum(close(self.rgb(x, y), want, tol)
                   for y in range(int(y0), int(y1))
                   for x in range(int(x0), int(x1)))


def parse_color(c):
    c = c.lstrip('#')
    return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))


def close(a, b, tol):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def read_png(path):
    with open(path, 'rb') as f:
        data = f.read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and not interlace, hdr
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(b''.join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        ftype, row = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif ftype == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif ftype == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                up_left = prev[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + _paeth(left, prev[i], up_left)) & 255
        rows.append(row)
        prev = row
    return Image(width, height, bpp, rows)


def render(svg_path):
    """@svg_path rendered by rsvg-convert at its own size."""
    exe = shutil.which('rsvg-convert')
    assert exe, 'rsvg-convert is missing: scripts/host-deps.sh installs librsvg2-bin'
    fd, png = tempfile.mkstemp(suffix='.png')
    os.close(fd)
    try:
        p = subprocess.run([exe, '-f', 'png', '-o', png, svg_path],
                           stderr=subprocess.PIPE, text=True, timeout=120)
        assert p.returncode == 0, f'rsvg-convert: {p.stderr}'
        return read_png(png)
    finally:
        os.unlink(png)
