"""What the browser tests of the play page and the replay page both check."""

from __future__ import annotations

from playwright.sync_api import Page

# How long a page waits for the play server. A new game or a move may be the server's first of
# its variant or agent, which numba then compiles (a cold cache on a clean checkout): seconds
# alone, far more beside other tests. The waits are for what the page shows, not how fast;
# speed is the benchmarks' to measure.
SERVER_WAIT_MS = 120_000

# Every text of the table picture that leaves the label or seat box it starts in, lies under a
# tile of a hand, or runs off the picture: names must never be clipped. (A tile whose box has no
# width is a hidden face the page does not show.)
CLIPPED = """() => {
    const box = (e) => e.getBoundingClientRect();
    const bad = [];
    for (const rect of document.querySelectorAll('#table rect.label, #table rect.seat')) {
        const r = box(rect);
        for (const text of document.querySelectorAll('#table text')) {
            const t = box(text);
            const starts = t.left >= r.left - 1 && t.left < r.right && t.top >= r.top - 1 && t.bottom <= r.bottom + 1;
            if (starts && t.right > r.right + 0.5) bad.push(text.textContent + ' leaves its box');
        }
    }
    for (const text of document.querySelectorAll('#table text.seat-name, #table text.seat-details')) {
        const t = box(text);
        for (const tile of document.querySelectorAll('#table .tile.hand, #table .tile.back')) {
            const b = box(tile);
            if (b.width === 0) continue;  // a hidden face
            const overlap = b.left < t.right && t.left < b.right && b.top < t.bottom && t.top < b.bottom;
            if (overlap) bad.push(text.textContent + ' under a tile');
        }
    }
    const svg = box(document.querySelector('#table svg'));
    for (const text of document.querySelectorAll('#table text')) {
        if (box(text).right > svg.right + 0.5) bad.push(text.textContent + ' off the table');
    }
    return bad;
}"""


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("innerWidth")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    right = page.evaluate("document.querySelector('#table svg').getBoundingClientRect().right")
    assert right <= width, f"the picture ends at {right} px, the window at {width}"
