"""The main window's documents: points files, session files and the autosave's recovery.

Never losing work, as a teacher meets it:

- New, Open, a preset, Clear and closing ask first when the points are unsaved
  (Save / Discard / Cancel); Cancel keeps everything as it was. Points are unsaved when
  they differ from the file they came from or were last saved to (loading a preset
  counts as saved: it can be loaded again). The learner's settings and the trial reached
  do not make the points unsaved; the autosave keeps them.
- Opening and saving run on a worker thread with a progress dialog and Cancel (see
  `file_tasks`): a million rows never freeze the window. Files are written through
  QSaveFile (atomic: a crash mid-save never leaves half a file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from simulator.app import preferences
from simulator.app.autosave import Autosaver, State, session_text
from simulator.app.file_tasks import Outcome, run_in_background, write_atomically
from simulator.engine import (
    PRESET_SETTINGS,
    PRESET_TITLES,
    DataFileError,
    Dataset,
    Settings,
    Simulation,
    load_dataset,
    load_preset,
)
from simulator.engine.session import Session, load_session
from simulator.presentation.frame import settings_line
from simulator.ui.safety import report_exception

if TYPE_CHECKING:
    from simulator.ui.controller import SimulationController
    from simulator.ui.plot_view import PlotView

__all__ = ["RESTORE", "SESSION_SUFFIX", "DocumentWindow"]

T = TypeVar("T")
SESSION_SUFFIX = ".lab.json"
RESTORE = QMessageBox.StandardButton.Yes  # the recovery question's "Restore" button


class DocumentWindow(QMainWindow):
    """A window's points and sessions on disk: the File menu's work, and recovery.

    The subclass (`MainWindow`) makes what is declared here before any of it is used."""

    controller: SimulationController
    plot: PlotView
    autosaver: Autosaver
    _app_settings: QSettings | None
    _path: Path | None  # the file the points match
    _document: str | None  # a name for data without a file (a preset)
    restore_cancelled = False  # whether the last session restore was cancelled

    def _update_title(self, *_: object) -> None:
        name = self._path.name if self._path is not None else self._document or "untitled"
        self.setWindowTitle(f"{name}[*] — Linear Classifier Lab")
        self.setWindowModified(not self.controller.undo_stack.isClean())

    def _on_problem(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)

    # -- data files -------------------------------------------------------------------------------

    def has_unsaved_points(self) -> bool:
        """Points that are in no file: changed since they were opened or last saved."""
        return len(self.controller.dataset) > 0 and not self.controller.undo_stack.isClean()

    def confirm_discard(self, doing: str) -> bool:
        """May the current points go? Asks Save / Discard / Cancel when they are unsaved;
        True for Discard, or Save once the save succeeded."""
        if not self.has_unsaved_points():
            return True
        self.controller.pause()
        answer = QMessageBox.question(
            self,
            "Unsaved points",
            f"The points have unsaved changes. Save them before {doing}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Discard:
            return True
        return answer == QMessageBox.StandardButton.Save and self.save()

    def _set_document(self, path: Path | None, name: str | None = None) -> None:
        """The points now match `path` (or a preset called `name`): they count as saved."""
        self._path, self._document = path, name
        self.controller.undo_stack.setClean()
        if path is not None:
            preferences.remember_folder(self._app_settings, path)
        self._update_title()
        if hasattr(self, "autosaver"):
            self.autosaver.changed()  # the autosave names the document, for a recovery

    def new_points(self) -> bool:
        if not self.confirm_discard("starting anew"):
            return False
        self.controller.set_dataset(Dataset.empty(), "New")
        self._set_document(None)
        self.plot.fit_view()
        return True

    def load_preset(self, name: str) -> bool:
        title = PRESET_TITLES.get(name, name)
        if not self.confirm_discard(f"loading the preset {title}"):
            return False
        settings = PRESET_SETTINGS[name]
        if not self.controller.set_dataset(load_preset(name), f"Preset {name}", settings):
            return False
        self._set_document(None, name)
        self.plot.fit_view()
        line = settings_line(self.controller.frame)
        self.statusBar().showMessage(f"Loaded the {name} preset: {line}.", 8000)
        return True

    def clear_points(self) -> bool:
        """Edit → Clear: remove every point (undoable), after asking if they are unsaved."""
        if len(self.controller.dataset) == 0:
            return True
        if not self.confirm_discard("clearing them"):
            return False
        self.controller.clear()
        return True

    def open_file(self, path: str | Path) -> bool:
        """Load points from a CSV or JSON file on a worker; on error say why and keep the
        current points. A session file (NAME.lab.json) opens as a session."""
        path = Path(path)
        if path.name.endswith(SESSION_SUFFIX):
            return self.open_session(path)
        if not self.confirm_discard(f"opening {path.name}"):
            return False
        settings = self.controller.settings

        def load(cancelled: Callable[[], bool]) -> tuple[Dataset, Simulation | None]:
            dataset = load_dataset(path, cancelled)
            if cancelled():
                return dataset, None
            # The costly first look at new data, done here rather than on the GUI thread.
            simulation = _simulation_for(dataset, settings)
            _first_look(simulation)
            return dataset, simulation

        outcome = run_in_background(self, f"Opening {path.name}…", load)
        loaded = self._finished(outcome, "Cannot open the file", f"Opening {path.name}")
        if loaded is None:
            return False
        _, simulation = loaded
        if simulation is None:  # cancelled
            return False
        if not self.controller.load_run(simulation, f"Open {path.name}"):
            return False
        self._set_document(path)
        self.plot.fit_view()
        if simulation.settings.initial_weights != settings.initial_weights:
            self.statusBar().showMessage(
                f"The custom start w₀ does not fit {path.name}: the rule's default start is "
                "used (Undo brings back the points before, with their w₀).",
                15000,
            )
        return True

    def save_to(self, path: str | Path) -> bool:
        """Write the points as CSV, atomically and on a worker; on error say why."""
        path = Path(path)
        dataset = self.controller.dataset
        outcome = run_in_background(
            self,
            f"Saving {path.name}…",
            lambda cancelled: write_atomically(path, dataset.to_csv, cancelled),
        )
        if not outcome.ok:
            self._finished(outcome, "Cannot save", f"Saving {path.name}")
            return False
        self._set_document(path)
        self.statusBar().showMessage(f"Saved {len(dataset)} points to {path}.", 4000)
        return True

    def _finished(self, outcome: Outcome[T], title: str, doing: str) -> T | None:
        """The value of finished file work; None (and the user told why) otherwise."""
        if outcome.cancelled:
            self.statusBar().showMessage(f"{doing} was cancelled; nothing changed.", 6000)
            return None
        error = outcome.error
        if error is None:
            return outcome.value
        if not isinstance(error, DataFileError | ValueError | OSError):
            report_exception(error)  # a bug, not a bad file: the last resort reports it
        QMessageBox.critical(self, title, str(error))
        return None

    # -- sessions -------------------------------------------------------------------------------

    def open_session(self, path: str | Path, *, session: Session | None = None) -> bool:
        """Restore a session file: its points, settings and the trial it reached (replayed on
        a worker, so w is bit for bit what it was). False, and a dialog, if it cannot.
        `session`: the file's content, already read (by the command line)."""
        path = Path(path)
        if not self.confirm_discard(f"opening {path.name}"):
            return False

        def load() -> Session:
            return session if session is not None else load_session(path)

        if not self._restore(load, path, f"Open {path.name}", "Cannot open the session"):
            return False
        self._set_document(path)
        return True

    def save_session(self, path: str | Path) -> bool:
        """Write points, settings and the trial reached to a session file, atomically."""
        path = Path(path)
        state = self.session_state()
        outcome = run_in_background(
            self,
            f"Saving {path.name}…",
            lambda cancelled: write_atomically(
                path, lambda: session_text(state), cancelled, private=True
            ),
        )
        if not outcome.ok:
            self._finished(outcome, "Cannot save the session", f"Saving {path.name}")
            return False
        self._set_document(path)
        self.statusBar().showMessage(
            f"Saved the session (trial {state.trial}, {len(state.dataset)} points) to {path}.",
            4000,
        )
        return True

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open session", self._folder(), f"Sessions (*{SESSION_SUFFIX});;All files (*)"
        )
        if path:
            self.open_session(path)

    def save_session_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save session", self._folder(), f"Sessions (*{SESSION_SUFFIX})"
        )
        if not path:
            return False
        if not path.endswith(SESSION_SUFFIX):
            path = path.removesuffix(".json") + SESSION_SUFFIX
        return self.save_session(path)

    def _restore(self, load: Callable[[], Session], path: Path, text: str, title: str) -> bool:
        """Load a session on a worker, replay it there, and show it (one undo step). Cancel
        stops the replay itself (`restore_cancelled` then says so)."""
        outcome = run_in_background(
            self, f"Opening {path.name}…", lambda cancelled: _replayed(load(), cancelled)
        )
        self.restore_cancelled = outcome.cancelled
        replayed = self._finished(outcome, title, f"Opening {path.name}")
        if replayed is None:
            return False
        simulation, note = replayed
        if not self.controller.load_run(simulation, text):
            return False
        self.plot.fit_view()
        if note is not None:  # the points stay; the class should know w is not the saved one
            QMessageBox.information(self, "Restored by replaying", f"{path.name}: {note}")
        return True

    # -- autosave and recovery -------------------------------------------------------------------

    def session_state(self) -> State:
        """What a session file (and the autosave) keeps of this window, right now."""
        c = self.controller
        state = c.simulation.state
        state.setflags(write=False)
        return State(c.dataset, c.settings, c.simulation.trials, state)

    def autosave_state(self) -> State:
        """The session state, with which document the points are (a recovery names it)."""
        if self._path is not None:
            origin: tuple[str, str] | None = ("file", str(self._path.absolute()))
        else:
            origin = None if self._document is None else ("name", self._document)
        return replace(self.session_state(), origin=origin)

    def offer_recovery(self) -> bool:
        """At start: if the last run did not end cleanly, ask whether to restore its
        autosave (Restore / Discard). True if it was restored."""
        leftover = self.autosaver.leftover()
        if leftover is None:
            return False
        when = datetime.fromtimestamp(leftover.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Restore your work?",
            "Linear Classifier Lab did not close properly last time. Restore the points, "
            f"the learner's settings and the trial reached, as autosaved at {when}?",
            RESTORE | QMessageBox.StandardButton.Discard,
            self,
        )
        box.setObjectName("recoveryQuestion")
        box.button(RESTORE).setText("&Restore")
        box.setDefaultButton(RESTORE)
        with self.autosaver.held():  # no new autosave may replace the file meanwhile
            answer = box.exec()
            box.deleteLater()
            if answer == RESTORE:
                return self.recover()
            self.autosaver.remove()
        return False

    def recover(self) -> bool:
        """Restore the autosave of a run that did not end cleanly, without asking
        (`python main.py --recover`). The points count as unsaved: they are in no file."""
        leftover = self.autosaver.leftover()
        if leftover is None:
            self.statusBar().showMessage("There is no autosave to recover.", 6000)
            return False
        with self.autosaver.held():
            read: list[Session] = []

            def load() -> Session:  # on the worker; the document is named once it is shown
                read.append(load_session(leftover))
                return read[-1]

            if self._restore(load, leftover, "Recover autosave", "Cannot restore the autosave"):
                self._path, self._document = _recovered_document(read[-1].origin)
                self._update_title()  # still modified (`*`): the work is in no file yet
                self.statusBar().showMessage(f"Restored the autosave {leftover}.", 6000)
                return True
            if self.restore_cancelled:  # not an answer: it stays, to be offered next time
                self.autosaver.keep_leftover()
                self.statusBar().showMessage(
                    f"Restoring was cancelled; the autosave {leftover} stays for the next start.",
                    15000,
                )
                return False
            # Unreadable: keep it aside (not lost, not asked about at every start).
            kept = leftover.with_name(datetime.now().strftime("unreadable-%Y%m%d-%H%M%S.lab.json"))
            try:
                leftover.replace(kept)
            except OSError as exc:  # run from a timer at start: it must not reach Qt
                self._on_problem(f"The unreadable autosave {leftover} stays where it is: {exc}")
                return False
            self.statusBar().showMessage(f"The unreadable autosave was kept as {kept}.", 15000)
            return False

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open points",
            self._folder(),
            f"Points or sessions (*.csv *.json *{SESSION_SUFFIX});;All files (*)",
        )
        if path:
            self.open_file(path)

    def save(self) -> bool:
        """Save to the current file (a session file stays a session), or ask where."""
        if self._path is None:
            return self.save_as_dialog()
        if self._path.name.endswith(SESSION_SUFFIX):
            return self.save_session(self._path)
        return self.save_to(self._path)

    def save_as_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save points as CSV", self._folder(), "CSV (*.csv)"
        )
        if not path:
            return False
        if not path.lower().endswith(".csv"):
            path += ".csv"
        return self.save_to(path)

    def _folder(self) -> str:
        return preferences.last_folder(self._app_settings)


def _recovered_document(origin: tuple[str, str] | None) -> tuple[Path | None, str | None]:
    """(path, name) for the window from an autosave's origin: its file, its preset's
    name, or "recovered" for an autosave that did not say (older versions)."""
    if origin is None:
        return None, "recovered"
    kind, value = origin
    return (Path(value), None) if kind == "file" else (None, value)


def _simulation_for(dataset: Dataset, settings: Settings) -> Simulation:
    """A run of `settings` over new data; a custom w₀ that does not fit their number of
    features gives way to the rule's default start (opening data must not fail on it)."""
    try:
        return Simulation.from_settings(dataset, settings)
    except ValueError:
        custom = settings.initial_weights
        if custom is None or isinstance(custom, str):
            raise
    return Simulation.from_settings(dataset, replace(settings, initial_weights=None))


def _replayed(
    session: Session, cancelled: Callable[[], bool] | None = None
) -> tuple[Simulation, str | None]:
    """A session's run replayed to its trial, with its theory computed (worker side), and
    a line when the replay cannot be the saved run (see `Session.verify`). Raises
    `Cancelled` once `cancelled()` is true (the replay stops within an epoch)."""
    simulation = session.simulation(cancelled)
    _first_look(simulation)
    return simulation, session.verify(simulation)


def _first_look(simulation: Simulation) -> None:
    """What the first frame of new data costs most (worker side): γ*, the first conflict,
    and least squares for a rule that has them; the frame then finds them cached."""
    simulation.margin_report()
    simulation.dataset.first_conflict()
    if simulation.rule.least_squares:
        simulation.adaline_report()
