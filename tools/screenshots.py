"""Screenshots of the real window in several states, for README.md and for looking at.

Run under a display of the size to check, e.g.

    xvfb-run -a -s "-screen 0 1024x768x24" python tools/screenshots.py OUT \\
        [--presentation] [--charts] [--tab=proof|mistakes|loss|ledger] [STATE ...]

The window opens as it would for a user (sized to the screen's available area); each state
is set up through the controller and the window's own actions, painted, and grabbed from
the screen. A state `preset:NAME[:TRIALS]` loads a preset as File → Presets does (with the
settings it brings) and runs TRIALS trials. Files are named
OUT/STATE_WxH[_presentation][_charts].png after the screen's size; --charts opens the
charts and ledger below the plot (the plot is then short), on the tab --tab names (the
first by default; the file name then ends in _TAB).
A negative trial count means "run to the k-th mistake". README.md's screenshot is the
`readme` state in presentation mode on a 1280×800 screen. The state `lab` is Tools → Winnow
vs Perceptron lab after its default race (r = 2, n = 8…2048, 2,000 examples, until
converged).
"""

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from simulator.engine import Settings, load_preset
from simulator.ui import MainWindow

# name: (preset or None, settings, trials, optimal separator shown)
STATES = {
    "empty": (None, Settings(), 0, False),
    "or3": ("or", Settings(), 3, False),
    "or8": ("or", Settings(), 8, False),
    "midrun": ("separable", Settings(), 7, True),
    "converged": ("separable", Settings(), 10_000, True),
    "xor": ("xor", Settings(), 13, False),
    "winnow": ("or", Settings(algorithm="winnow"), 6, False),
    "iris": ("iris", Settings(), 60, False),
    "iris-winnow": ("iris", Settings(algorithm="winnow"), 60, False),
    "adaline": ("noisy", Settings(algorithm="adaline"), 65, False),
    "winnow-settings": (
        "or",
        Settings(algorithm="winnow", promotion=200, threshold=0.0004),
        2,
        False,
    ),
    "highdim": ("disjunction", Settings(algorithm="winnow", bias=False), 120, False),
    "readme": ("separable", Settings(), -5, True),  # the 5th mistake
    "iris3": ("iris3", Settings(algorithm="multiclass-perceptron"), 1500, False),
    "kessler": ("blobs3", Settings(algorithm="kessler"), 7, False),
    "cmu": ("cmu", Settings(bias=False), 10_000, True),  # the notes' worked example: k ≤ 5
    "iris-run": ("iris", Settings(), 10**6, False),  # 1,518 mistakes on the timeline
    "adaline-batch": ("or", Settings("adaline", mode="batch"), 10**6, False),
    "pocket-noisy": ("noisy", Settings("pocket"), 400, False),  # both lines, the pocket's count
    "eg-or": ("or", Settings("eg"), 6, False),
    "averaged-noisy": ("noisy", Settings("averaged-perceptron"), 400, False),
    "margin-separable": ("separable", Settings("margin-perceptron", margin=1.0), 40, False),
    "xor-quadratic": ("xor", Settings(features="quadratic"), 10**4, False),  # the curve
    "xor-kernel": ("xor", Settings("kernel-perceptron", kernel="polynomial"), 10**4, False),
    "ring-rbf": ("ring", Settings("kernel-perceptron", kernel="rbf"), 10**4, False),
    "moons-voted": ("moons", Settings("voted-perceptron"), 2000, False),
}


def start_app() -> QApplication:
    """The QApplication as the app sets it up (antialiasing, at least 10.5 pt type)."""
    from simulator.ui.style import set_up_look

    app = QApplication.instance() or QApplication(sys.argv)
    set_up_look(app)
    return app


def grab(app, window, path):
    for _ in range(10):
        app.processEvents()
    frame = window.frameGeometry()
    pixmap = window.screen().grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
    pixmap.save(str(path))
    print("wrote", path)


TABS = ("proof", "mistakes", "loss", "ledger")


def main(
    out: Path, names: list[str], presentation: bool, charts: bool = False, tab: str = ""
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    app = start_app()
    screen = app.primaryScreen().geometry()
    suffix = f"_{screen.width()}x{screen.height()}" + ("_presentation" if presentation else "")
    suffix += "_charts" if charts else ""
    suffix += f"_{tab}" if charts and tab else ""
    for name in names or [*STATES, "lab"]:
        if name == "lab":
            lab(app, out / f"lab{suffix}.png", presentation)
            continue
        if name.startswith("preset:"):  # preset:NAME[:TRIALS], loaded as File → Presets does
            _, preset, *count = name.split(":")
            window = MainWindow()
            window.show()
            window.load_preset(preset)
            settings, trials, separator = None, int(count[0]) if count else 0, False
            name = f"preset-{preset}" + (f"-{count[0]}" if count else "")
        else:
            preset, settings, trials, separator = STATES[name]
            window = MainWindow(load_preset(preset) if preset else None, settings)
            window.show()
        window.presentation_action.setChecked(presentation)
        if window.isMaximized():  # as a window manager would (Xvfb runs none)
            window.setGeometry(window.screen().availableGeometry())
        window.separator_action.setChecked(separator)
        window.time.area_action.setChecked(charts)
        if charts and tab:
            window.time.tabs.setCurrentIndex(TABS.index(tab))
        if trials < 0:
            for _ in range(-trials):
                window.controller.next_mistake()
        elif trials:
            window.controller.simulation.run(trials - 1)
            window.controller.step()
        grab(app, window, out / f"{name}{suffix}.png")
        window.controller.undo_stack.setClean()
        window.close()


def lab(app, path, presentation):
    """The lab window over the main window, after a small race."""
    window = MainWindow()
    window.show()
    window.presentation_action.setChecked(presentation)
    window.lab_action.trigger()
    from simulator.app.lab_window import LabWindow

    found = window.findChild(LabWindow, "labWindow")
    found.start()
    while found.running:
        app.processEvents()
    for _ in range(10):
        app.processEvents()
    frame = found.frameGeometry()
    found.screen().grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height()).save(
        str(path)
    )
    print("wrote", path)
    found.close()
    window.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith("--")}
    rest = [a for a in args if not a.startswith("--")]
    out = Path(rest[0] if rest else "screenshots")
    tabs = [a.split("=", 1)[1] for a in flags if a.startswith("--tab=")]
    main(out, rest[1:], "--presentation" in flags, "--charts" in flags, tabs[0] if tabs else "")
