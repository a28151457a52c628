"""The GIF writer: one palette, only what changed, streamed; every colour of the drawing
comes back exactly."""

import numpy as np
from PIL import Image

from simulator.export.writers import GifWriter

WHITE, BLUE, ORANGE, GREY = (255, 255, 255), (0, 114, 178), (230, 159, 0), (140, 140, 140)


def argb(rgb_image):
    """(h, w, 3) RGB -> (h, w) 0xFFRRGGBB, as `frame_pixels` gives them."""
    r, g, b = (rgb_image[..., i].astype(np.uint32) for i in range(3))
    return 0xFF000000 | (r << 16) | (g << 8) | b


def frames_of(path):
    with Image.open(path) as gif:
        out = []
        for index in range(gif.n_frames):
            gif.seek(index)
            out.append(np.asarray(gif.convert("RGB")))
        return out, gif.info


def test_frames_come_back_exactly_with_colours_the_first_frame_lacks(tmp_path):
    first = np.full((40, 60, 3), WHITE, dtype=np.uint8)
    first[5:15, 5:15] = BLUE
    second = first.copy()
    second[20:30, 30:50] = ORANGE  # not in frame 0, but one of the drawing's colours
    third = second.copy()
    third[5:15, 5:15] = WHITE
    third[0, 59] = GREY
    writer = GifWriter(tmp_path / "a.gif", fps=4, size=(60, 40), colours=[WHITE, BLUE, ORANGE])
    for image in (first, second, third, third):
        writer.add(argb(image))
    assert writer.finish() == tmp_path / "a.gif"
    shown, info = frames_of(tmp_path / "a.gif")
    assert info["loop"] == 0 and info["duration"] == 250
    assert len(shown) == 4
    for decoded, drawn in zip(shown[:2], (first, second), strict=True):
        assert np.array_equal(decoded, drawn)
    # Grey is in no palette entry given; it goes to the nearest, the rest stays exact.
    assert np.array_equal(shown[2][:, :59], third[:, :59]) and np.array_equal(shown[3], shown[2])
    with Image.open(tmp_path / "a.gif") as gif:
        palette = np.array(gif.getpalette()[: 3 * 255]).reshape(-1, 3)
    nearest = palette[((palette - GREY) ** 2).sum(axis=1).argmin()]
    assert tuple(shown[2][0, 59]) == tuple(nearest) != GREY
    assert list(tmp_path.iterdir()) == [tmp_path / "a.gif"]


def test_a_frame_stores_only_what_changed(tmp_path):
    size = (320, 200)
    base = np.full((200, 320, 3), WHITE, dtype=np.uint8)
    moved = base.copy()
    moved[100:104, 150:154] = BLUE

    def written(frames):
        writer = GifWriter(tmp_path / "b.gif", fps=5, size=size, colours=[WHITE, BLUE])
        for image in frames:
            writer.add(argb(image))
        writer.finish()
        return (tmp_path / "b.gif").stat().st_size

    one = written([base])
    still = written([base] + [base] * 10)
    small = written([base, moved] * 5 + [base])
    assert still - one < 10 * 30  # an unchanged frame costs a few bytes: one clear pixel
    assert small - one < 10 * 80  # a 4x4 change costs its rectangle, not the frame


def test_a_cancelled_gif_leaves_nothing(tmp_path):
    writer = GifWriter(tmp_path / "c.gif", fps=5, size=(8, 8), colours=[WHITE])
    writer.add(argb(np.full((8, 8, 3), WHITE, dtype=np.uint8)))
    assert writer.finish(keep=lambda: False) is None
    assert list(tmp_path.iterdir()) == []
    writer = GifWriter(tmp_path / "d.gif", fps=5, size=(8, 8))
    writer.add(argb(np.zeros((8, 8, 3), dtype=np.uint8)))
    writer.abort()
    assert list(tmp_path.iterdir()) == []
