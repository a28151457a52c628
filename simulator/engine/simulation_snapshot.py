"""`SimulationSnapshot`: what a run's current weights make of its current data.

The current margin minᵢ yᵢ (w·xᵢ − θ)/|w|, the boundary as a line of the input plane, and
`snapshot`, the immutable summary a `Frame` is made from (one pass over the data serves
its margin and its misclassified points).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from simulator.engine.features import InputLine
from simulator.engine.records import Snapshot
from simulator.engine.simulation_replay import SimulationReplay
from simulator.engine.theory import signed_margin

__all__ = ["SimulationSnapshot"]

FloatArray = NDArray[np.float64]


class SimulationSnapshot(SimulationReplay):
    """A `Simulation`'s margin, boundary and snapshot under its current weights."""

    # -- the current weights on the current data -----------------------------------------------

    def current_margin(self) -> float:
        """minᵢ yᵢ (w·xᵢ − θ)/|w| for the current w; nan when w = 0 or there is no data."""
        return signed_margin(self._signed_scores()[0], self._learner.weights(self._live.state))

    def _signed_scores(self) -> tuple[FloatArray, NDArray[np.bool_]]:
        """(v, certain) for every current training row, ties decided (exactly 0)."""
        live, X, y = self._live, self._train_X, self._train_y
        runner = self._runner
        with np.errstate(over="ignore", invalid="ignore"):
            terms = runner.terms(live, None, self._largest)
            return runner.signed_rows(live, terms, X, y, self._exact_row)

    def boundary(self) -> InputLine | None:
        """The boundary w·x = θ as a line in the input plane (None if it is not one)."""
        w = self._learner.weights(self._live.state)
        return self._features.input_line(w, self._learner.threshold) if w.ndim == 1 else None

    def snapshot(self) -> Snapshot:
        signed, _ = self._signed_scores()  # one pass over the data serves margin and mistakes
        misclassified = self._runner.mistake_mask(signed, self._train_y)
        if self._rows is not None:  # a point is wrong when one of its rows is
            per_point = np.zeros(len(self._dataset), dtype=bool)
            np.logical_or.at(per_point, self._rows.points, misclassified)
            misclassified = per_point
        misclassified.setflags(write=False)
        return Snapshot(
            trials=self.trials,
            mistakes=self.mistakes,
            epoch=self.epoch,
            weights=tuple(self.shown_weights().ravel().tolist()),
            threshold=self.threshold,
            converged=self.converged,
            converged_at=self.converged_at,
            diverged=self.diverged,
            divergence_reason=self.divergence_reason,
            last_trial=self.last_trial,
            margin=signed_margin(signed, self._learner.weights(self._live.state)),
            misclassified=misclassified,
            diverged_at=self.diverged_at,
            cycle_period=self.cycle_period,
            cycle_found_at=self.cycle_found_at,
            rows=self.weights.shape[0] if self.weights.ndim == 2 else 1,
        )
