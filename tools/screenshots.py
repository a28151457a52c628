"""Screenshots of the real window in several states, for README.md and for looking at.

Run under a display (e.g. `xvfb-run -s "-screen 0 1280x800x24" python tools/screenshots.py OUT`).
Each state is set up through the controller, painted, and grabbed from the screen.
A negative trial count means "run to the k-th mistake".
"""

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from simulator.engine import Settings, load_preset
from simulator.ui import MainWindow


def grab(app, window, path):
    for _ in range(5):
        app.processEvents()
    pixmap = window.screen().grabWindow(0, window.x(), window.y(), window.width(), window.height())
    pixmap.save(str(path))
    print("wrote", path)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv)
    states = {
        "empty": (None, Settings(), 0, False),
        "midrun": (load_preset("separable"), Settings(), 7, True),
        "converged": (load_preset("separable"), Settings(), 10_000, True),
        "xor": (load_preset("xor"), Settings(), 13, False),
        "winnow": (load_preset("or"), Settings(algorithm="winnow"), 6, False),
        "iris": (load_preset("iris"), Settings(preprocessing="standardize"), 10_000, True),
        "adaline": (load_preset("noisy"), Settings(algorithm="adaline"), 65, True),
    }
    states["readme"] = (load_preset("separable"), Settings(), -5, True)  # 5th mistake
    only = set(sys.argv[2:])
    for name, (dataset, settings, trials, separator) in states.items():
        if only and name not in only:
            continue
        window = MainWindow(dataset, settings)
        window.resize(1280, 800)
        window.show()
        window.separator_action.setChecked(separator)
        window.plot.set_show_separator(separator)
        if trials < 0:
            for _ in range(-trials):
                window.controller.next_mistake()
        elif trials:
            sim = window.controller.simulation
            sim.run(trials - 1)
            window.controller.step()
        grab(app, window, out / f"{name}.png")
        window.controller.undo_stack.setClean()
        window.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
