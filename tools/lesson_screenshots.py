"""Screenshots of the real window in lessons, for looking at (as tools/screenshots.py).

    xvfb-run -a -s "-screen 0 1024x768x24" python tools/lesson_screenshots.py OUT \\
        [--presentation] NAME[:STEP[+]] ...

Each NAME:STEP opens the shipped lesson NAME at step STEP (default 1); a trailing "+"
also grabs the step with its question answered (revealed with Next). Files are named
OUT/NAME_STEP[_revealed]_WxH[_presentation].png after the screen's size.
"""

import sys
from pathlib import Path

from screenshots import grab, start_app  # beside this file: the same setup and grab

from simulator.ui import MainWindow


def main(out: Path, specs: list[str], presentation: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    app = start_app()
    screen = app.primaryScreen().geometry()
    suffix = f"_{screen.width()}x{screen.height()}" + ("_presentation" if presentation else "")
    for spec in specs:
        name, _, step = spec.partition(":")
        reveal = step.endswith("+")
        number = int(step.rstrip("+") or 1)
        window = MainWindow()
        window.show()
        window.presentation_action.setChecked(presentation)
        if not window.lessons.open_named(name):
            raise SystemExit(f"cannot open the lesson {name}")
        window.lessons.go_to(number)
        grab(app, window, out / f"{name}_{number}{suffix}.png")
        if reveal:
            window.lessons.next()
            grab(app, window, out / f"{name}_{number}_revealed{suffix}.png")
        window.lessons.leave()
        window.controller.undo_stack.setClean()
        window.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith("--")}
    rest = [a for a in args if not a.startswith("--")]
    if not rest:
        raise SystemExit(__doc__)
    main(Path(rest[0]), rest[1:], "--presentation" in flags)
