"""The charts: the proof's A_k and B_k against numpy, Novikoff's inequalities as properties,
the bound line, Adaline's loss, the weights, drawing only what is new, and exporting."""

import csv
import io
import itertools
import math

import numpy as np
import pyqtgraph as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QLabel, QToolButton

from simulator.engine import Dataset, Settings, Simulation, load_preset, margin_report
from simulator.engine.presets import noisy
from simulator.presentation.frame import build_frame
from simulator.presentation.trace import ceiling
from simulator.ui import MainWindow, chart_base, charts
from simulator.ui.chart_curve import BLACK
from simulator.ui.charts import GrowingCurve
from tests.helpers.driven import finish


def make_window(qtbot, dataset, settings=None, tab=0):
    win = MainWindow(dataset, settings or Settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.time.area_action.setChecked(True)
    win.time.tabs.setCurrentIndex(tab)
    return win


def independent_run(dataset, settings, trials):
    """A fresh simulation stepped `trials` times; the trials it returned."""
    sim = Simulation.from_settings(dataset, settings)
    return sim, [sim.step() for _ in range(trials)]


def proof_by_numpy(dataset, settings, trials, learning_rate=1.0):
    """A_k and B_k (k = 0…m) from an independent run's own records, in the general form."""
    sim, records = independent_run(dataset, settings, trials)
    report = margin_report(dataset, bias=settings.bias)
    u, gamma, radius = np.array(report.separator), report.gamma, report.radius
    w0 = sim.initial_weights
    after = np.array([t.weights_after for t in records if t.mistake]).reshape(-1, len(w0))
    w = np.vstack([w0, after])
    along = (w - w0) @ u / (learning_rate * gamma)
    norm = (np.sum(w * w, axis=1) - w0 @ w0) / (learning_rate * radius) ** 2
    return along, norm


@pytest.fixture
def converged(qtbot):
    win = make_window(qtbot, load_preset("separable"))
    win.controller.run()
    finish(win.controller)
    assert win.controller.simulation.converged
    yield win
    win.controller.undo_stack.setClean()


def test_the_proof_curves_equal_an_independent_computation(converged):
    c = converged.controller
    chart = converged.findChild(charts.ProofChart, "proofChart")
    assert chart is converged.time.proof_chart
    along, norm = proof_by_numpy(c.dataset, c.settings, c.simulation.trials)
    m = c.simulation.mistakes
    assert len(along) == m + 1 and m >= 5
    k, drawn_a = chart.along.data()
    _, drawn_b = chart.norm.data()
    np.testing.assert_allclose(k, np.arange(m + 1))
    np.testing.assert_allclose(drawn_a, along, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(drawn_b, norm, rtol=1e-12, atol=1e-12)
    assert chart.along.chunks[0].item.name() == "w·u*/ηγ*"
    assert chart.norm.chunks[0].item.name() == "‖w‖²/η²R²"
    assert chart.curve_names() == ("w·u*/ηγ*", "‖w‖²/η²R²", "k", "√k·R/γ*")
    # The squeeze the class is meant to see, and where it ends.
    assert np.all(drawn_a >= k - 1e-9) and np.all(drawn_b <= k + 1e-9)
    bound = margin_report(c.dataset).bound
    assert chart.bound_line.isVisible() and chart.bound_line.value() == pytest.approx(bound)
    x, ceiling = chart.ceiling.getData()
    np.testing.assert_allclose(
        ceiling, np.sqrt(x) * margin_report(c.dataset).radius / margin_report(c.dataset).gamma
    )
    assert x[-1] > bound  # the ceiling and the line k meet inside the view
    caption = converged.findChild(QLabel, "proofChartCaption").text()
    assert "A_k = w·u*/ηγ* ≥ k" in caption and f"{bound:.4g}" in caption


def test_a_learning_rate_scales_w_but_not_the_proof(qtbot):
    settings = Settings(learning_rate=0.25)
    win = make_window(qtbot, load_preset("separable"), settings)
    win.controller.simulation.run(400)
    win.controller.step()
    c = win.controller
    along, norm = proof_by_numpy(c.dataset, c.settings, c.simulation.trials, 0.25)
    np.testing.assert_allclose(win.time.proof_chart.along.data()[1], along, rtol=1e-12)
    np.testing.assert_allclose(win.time.proof_chart.norm.data()[1], norm, rtol=1e-12)
    c.undo_stack.setClean()


@st.composite
def separable_data(draw, max_points=7):
    """A few points labelled by a line, none closer to it than 0.05 (so γ* > 0)."""
    n = draw(st.integers(2, max_points))
    coordinate = st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 2))
    points = draw(st.lists(st.tuples(coordinate, coordinate), min_size=n, max_size=n))
    angle = draw(st.floats(0, 2 * math.pi))
    offset = draw(st.floats(-1, 1))
    u = np.array([math.cos(angle), math.sin(angle)])
    scores = np.array(points) @ u + offset
    keep = np.abs(scores) > 0.05
    if keep.sum() < 2:
        return None
    return Dataset(np.array(points)[keep], np.where(scores[keep] > 0, 1, -1))


def followed_to_convergence(dataset, settings):
    sim = Simulation.from_settings(dataset, settings)
    sim.run(200_000)
    assert sim.converged
    frame = build_frame(sim)
    return sim, frame, frame.trace.followed()


@settings(max_examples=25)
@given(
    dataset=separable_data(),
    rate=st.sampled_from([1.0, 0.1, 3.0]),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_novikoff_squeeze_holds_on_separable_data(dataset, rate, order):
    if dataset is None:
        return
    sim, frame, followed = followed_to_convergence(
        dataset, Settings(learning_rate=rate, order=order)
    )
    proof = followed.proof
    assert proof.applies and not proof.general
    k = np.arange(len(proof.along))
    assert len(k) == sim.mistakes + 1
    slack = 1e-9 * np.maximum(1, k)
    assert np.all(proof.along >= k - slack)  # A_k ≥ k
    assert np.all(proof.norm <= k + slack)  # B_k ≤ k
    assert np.all(
        proof.along**2 <= proof.norm * (proof.radius / proof.gamma) ** 2 * (1 + 1e-9) + 1e-9
    )
    assert sim.mistakes <= proof.bound * (1 + 1e-9)
    assert frame.mistake_bound == pytest.approx(proof.bound)


@settings(max_examples=25)
@given(
    dataset=separable_data(),
    start=st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3),
    rate=st.sampled_from([1.0, 0.5]),
)
def test_the_general_form_holds_from_any_start(dataset, start, rate):
    """From w₀ ≠ 0: (w−w₀)·u*/ηγ* ≥ k, (‖w‖²−‖w₀‖²)/η²R² ≤ k, A_k ≤ C(k), k ≤ the bound."""
    if dataset is None or not any(start):
        return
    sim, _frame, followed = followed_to_convergence(
        dataset, Settings(learning_rate=rate, initial_weights=tuple(start))
    )
    proof = followed.proof
    assert proof.general
    k = np.arange(len(proof.along))
    slack = 1e-9 * np.maximum(1, k) + 1e-9
    assert np.all(proof.along >= k - slack)
    assert np.all(proof.norm <= k + slack)
    assert np.all(proof.along <= ceiling(proof, k.astype(float)) + slack)
    assert sim.mistakes <= proof.bound * (1 + 1e-9) + 1e-9
    # The chart's numbers against numpy from the run's own records.
    along, norm = proof_by_numpy(dataset, sim.settings, sim.trials, rate)
    np.testing.assert_allclose(proof.along, along, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(proof.norm, norm, rtol=1e-9, atol=1e-9)


def test_general_form_is_named_and_explained(qtbot):
    win = make_window(qtbot, load_preset("separable"), Settings(initial_weights=(0.5, -1.0, 2.0)))
    win.controller.simulation.run(300)
    win.controller.step()
    chart = win.time.proof_chart
    assert chart.curve_names() == ("(w−w₀)·u*/ηγ*", "(‖w‖²−‖w₀‖²)/η²R²", "k", "C(k)")
    assert chart.along.chunks[0].item.name() == "(w−w₀)·u*/ηγ*"
    caption = chart.caption
    assert "w₀·u* + kηγ* ≤ √(‖w₀‖² + kη²R²)" in caption and "whatever w₀" in caption
    assert chart.bound_line.value() == pytest.approx(win.controller.frame.mistake_bound)
    win.controller.undo_stack.setClean()


@pytest.mark.parametrize(
    ("preset", "settings", "why"),
    [
        ("xor", Settings(), "Not linearly separable"),
        ("separable", Settings(algorithm="adaline"), "Adaline makes no such promise"),
        ("or", Settings(algorithm="winnow"), "Winnow makes no such promise"),
    ],
)
def test_the_proof_chart_says_why_it_is_empty(qtbot, preset, settings, why):
    win = make_window(qtbot, load_preset(preset), settings)
    win.controller.simulation.run(50)
    win.controller.step()
    chart = win.time.proof_chart
    assert why in chart.note.toPlainText() and why in chart.caption
    assert chart.along.vertices == 0 or not chart.along.chunks[0].item.isVisible()
    assert not chart.bound_line.isVisible()
    win.controller.undo_stack.setClean()


def test_the_proof_chart_works_in_the_kernels_feature_space(qtbot):
    """ring with the RBF kernel it brings: the curves A_k, B_k, k and the bound, not a note."""
    preset = "ring"
    win = make_window(qtbot, load_preset(preset), Settings("kernel-perceptron", kernel="rbf"))
    win.controller.simulation.run(10_000)
    win.controller.step()
    chart = win.time.proof_chart
    assert win.time.tabs.currentWidget() is chart or chart.isVisible()
    assert chart.note.toPlainText() == "" and "no such promise" not in chart.caption
    mistakes = win.controller.simulation.mistakes
    assert chart.along.vertices == mistakes + 1 and chart.norm.vertices == mistakes + 1
    assert chart.along.chunks[0].item.isVisible() and chart.line.isVisible()
    assert chart.bound_line.isVisible()
    assert chart.bound_line.value() == pytest.approx(win.controller.frame.mistake_bound)
    assert "R²/γ*²" in chart.caption and "in K_b's feature space" in chart.caption
    assert "η y φ_b(x)·u* ≥ ηγ*" in chart.caption and "η²‖φ_b(x)‖² ≤ η²R²" in chart.caption
    win.controller.undo_stack.setClean()


def test_the_proof_chart_of_k_classes_writes_kesslers_names(qtbot):
    """The panel's γ_K and R_K, and Kessler's vectors z, not the plane's x."""
    win = make_window(qtbot, load_preset("blobs3"), Settings("multiclass-perceptron"))
    win.controller.simulation.run(200)
    win.controller.step()
    caption = win.time.proof_chart.caption
    assert "k ≤ R_K²/γ_K² = " in caption and "in Kessler's vectors" in caption
    assert "η y z·u* ≥ ηγ_K" in caption and "γ*" not in caption and " x" not in caption
    win.controller.undo_stack.setClean()


def test_the_mistakes_chart_steps_at_each_mistake_under_the_bound(qtbot, converged):
    c = converged.controller
    converged.time.tabs.setCurrentIndex(1)
    chart = converged.findChild(charts.MistakesChart, "mistakesChart")
    _, records = independent_run(c.dataset, c.settings, c.simulation.trials)
    times = [t.number for t in records if t.mistake]
    x, y = chart.curve.data()
    expected_x = [0.0] + [float(t) for t in times for _ in (0, 1)]
    expected_y = [0.0] + [float(v) for k in range(len(times)) for v in (k, k + 1)]
    assert x.tolist() == expected_x and y.tolist() == expected_y
    tip_x, tip_y = chart.tip.getData()
    assert (tip_x[-1], tip_y[-1]) == (c.simulation.trials, len(times))
    bound = margin_report(c.dataset).bound
    assert chart.bound_line.isVisible() and chart.bound_line.value() == pytest.approx(bound)
    assert chart.view_box.viewRange()[1][1] >= bound  # the class sees k approach it


@pytest.mark.parametrize(
    ("preset", "settings"),
    [("xor", Settings()), ("separable", Settings(algorithm="adaline"))],
)
def test_no_bound_line_where_no_finite_bound_applies(qtbot, preset, settings):
    win = make_window(qtbot, load_preset(preset), settings, tab=1)
    win.controller.simulation.run(30)
    win.controller.step()
    chart = win.time.mistakes_chart
    assert not chart.bound_line.isVisible()
    frame = win.controller.frame
    assert frame.mistake_bound is None or math.isinf(frame.mistake_bound)
    win.controller.undo_stack.setClean()


def test_adaline_loss_per_epoch_against_an_independent_computation(qtbot):
    dataset = load_preset("separable")
    settings = Settings(algorithm="adaline", learning_rate=0.05)
    win = make_window(qtbot, dataset, settings, tab=2)
    n = len(dataset)
    win.controller.simulation.run(12 * n - 1, until_converged=False)
    win.controller.step()
    chart = win.findChild(charts.LossChart, "lossChart")
    assert chart.mode == "loss" and chart.log
    _, records = independent_run(dataset, settings, 12 * n)
    X = np.column_stack([np.ones(n), dataset.points])
    y = dataset.labels.astype(float)
    expected = [
        np.mean((y - X @ np.array(records[e * n - 1].weights_after)) ** 2) for e in range(1, 13)
    ]
    epochs, logs = chart.loss.data()
    assert epochs.tolist() == list(range(13))
    assert 10 ** logs[0] == pytest.approx(1.0)  # epoch 0: w₀ = 0 scores 0, so (y − 0)² = 1
    np.testing.assert_allclose(10 ** logs[1:], expected, rtol=1e-9)
    np.testing.assert_allclose(10 ** logs[1:], win.controller.simulation.epoch_losses(), rtol=1e-12)
    w_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    floor = np.mean((y - X @ w_ls) ** 2)
    assert chart.floor_line.isVisible()
    assert 10 ** chart.floor_line.value() == pytest.approx(floor, rel=1e-9)
    assert min(expected) >= floor * (1 - 1e-9)  # nothing beats least squares
    win.controller.undo_stack.setClean()


def test_winnow_weights_over_time_on_a_log_scale(qtbot):
    dataset = load_preset("or")
    settings = Settings(algorithm="winnow")
    win = make_window(qtbot, dataset, settings, tab=2)
    win.controller.simulation.run(30)
    win.controller.step()
    chart = win.time.loss_chart
    assert chart.mode == "weights" and chart.log
    _, records = independent_run(dataset, settings, 31)
    mistakes = [t for t in records if t.mistake]
    for j, curve in enumerate(chart.weights):
        x, logs = curve.data()
        values = [1.0] + [t.weights_after[j] for t in mistakes]  # w starts at 1
        assert x.tolist() == [0.0] + [float(t.number) for t in mistakes for _ in (0, 1)]
        assert logs[0] == 0.0  # from w = 1 at trial 0
        np.testing.assert_allclose(10 ** logs[2::2], values[1:], rtol=1e-12)
        np.testing.assert_allclose(10 ** logs[1::2], values[:-1], rtol=1e-12)
    win.controller.undo_stack.setClean()


def test_charts_truncate_on_a_rewind_and_grow_again(qtbot, converged):
    c = converged.controller
    proof, mistakes = converged.time.proof_chart, converged.time.mistakes_chart
    converged.time.tabs.setCurrentIndex(1)
    converged.time.tabs.setCurrentIndex(0)  # both charts painted
    full_a = proof.along.data()[1].copy()
    t = int(c.simulation.mistake_trials()[2])  # just after the 3rd mistake
    c.seek(t)
    assert proof.along.data()[1].tolist() == full_a[:4].tolist()
    converged.time.tabs.setCurrentIndex(1)
    assert mistakes.curve.data()[1].tolist() == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0]
    converged.time.tabs.setCurrentIndex(0)
    c.seek(c.simulation.history_length)
    assert proof.along.data()[1].tolist() == full_a.tolist()


def test_only_new_points_are_drawn_and_a_hidden_chart_waits(qtbot, converged):
    c = converged.controller
    chart = converged.time.mistakes_chart
    c.reset()
    converged.time.tabs.setCurrentIndex(1)
    c.simulation.run(40)
    c.step()
    chunks = [(chunk.item, chunk.x.copy()) for chunk in chart.curve.chunks]
    before = chart.curve.vertices
    c.next_mistake()
    assert chart.curve.vertices == before + 2  # one step up
    assert chart.curve.chunks[0].item is chunks[0][0]
    converged.time.tabs.setCurrentIndex(3)  # the chart is hidden: it waits
    drawn = chart.curve.vertices
    c.next_mistake()
    assert chart.curve.vertices == drawn
    converged.time.tabs.setCurrentIndex(1)
    assert chart.curve.vertices == drawn + 2


@settings(max_examples=40)
@given(counts=st.lists(st.integers(0, 300), min_size=1, max_size=12))
def test_a_growing_curve_always_shows_what_a_fresh_drawing_would(qapp, counts):
    """Any sequence of lengths (growing, cut back, growing past the budget): the drawn
    vertices are the source points 0, s, 2s, … below the count, however they got there."""
    widget = pg.PlotWidget()
    curve = GrowingCurve(
        widget.getPlotItem(), BLACK, per_point=2, origin=(-1.0, -1.0), chunk=16, budget=64
    )
    source = np.arange(400, dtype=np.float64)

    def points(a, b, s):
        idx = np.arange(a, b, s)
        return np.repeat(source[idx], 2), np.repeat(-source[idx], 2)

    for count in counts:
        kept = [(c.item, c.x.copy()) for c in curve.chunks[:-1]]
        stride_before, drawn_before = curve.stride, curve.drawn
        curve.update(count, points)
        x, y = curve.data()
        stride = curve.stride
        expected = np.arange(0, count, stride, dtype=np.float64)
        assert x.tolist() == [-1.0] * bool(curve.chunks) + np.repeat(expected, 2).tolist()
        assert (-y[1:]).tolist() == np.repeat(expected, 2).tolist()
        assert 2 * count <= curve.budget * stride and all(len(c.x) <= 16 + 1 for c in curve.chunks)
        if stride == stride_before and count >= drawn_before:
            # Growing: the full chunks are the same items with the same vertices.
            assert [c.item for c in curve.chunks[: len(kept)]] == [item for item, _ in kept]
            for (_, data), chunk in zip(kept, curve.chunks, strict=False):
                assert chunk.x.tolist() == data.tolist()
            assert curve.appended <= 2 * (count - drawn_before) + 2 * 17
    widget.close()
    widget.deleteLater()


def test_a_long_history_is_followed_a_bounded_amount_at_a_time(qtbot, monkeypatch):
    monkeypatch.setattr(chart_base, "FOLLOW_BUDGET", 50)
    win = make_window(qtbot, noisy(n=50, seed=2), Settings(), tab=1)
    c = win.controller
    c.simulation.run(4000, until_converged=False)
    c.step()
    mistakes = c.simulation.mistakes
    assert mistakes > 300
    win.time.tabs.setCurrentIndex(2)
    chart = win.time.loss_chart
    first = len(chart.weights[0].data()[0]) // 2
    assert first <= 50 and "Replaying the run" in chart.caption
    followed = [len(chart._followed.weights)]
    while "Replaying" in chart.caption and len(followed) <= mistakes:
        chart.paint_frame(c.frame)  # what each later turn of the event loop does
        followed.append(len(chart._followed.weights))
    assert "Replaying" not in chart.caption
    assert all(0 < b - a <= 50 for a, b in itertools.pairwise(followed))  # a bounded amount
    assert chart._followed is not None and len(chart._followed.weights) == mistakes
    c.undo_stack.setClean()


def test_the_follow_cache_survives_edits_at_a_rewound_trial():
    """Points edited at a rewound trial replace the recorded future: the trace must not
    keep the old weights after the cut."""
    dataset = load_preset("separable")
    sim = Simulation(dataset)
    sim.run(120)
    build_frame(sim).trace.followed()
    sim.seek(30)
    build_frame(sim)
    sim.replace_dataset(dataset.relabelled(5, -int(dataset.labels[5])))
    build_frame(sim)
    sim.run(300)
    followed = build_frame(sim).trace.followed()
    records = sim.trial_records(1, sim.trials)
    expected = [t.weights_after for t in records if t.mistake]
    assert followed.weights.tolist() == [list(w) for w in expected]


def test_export_a_chart_as_png_svg_and_its_data_as_csv(qtbot, converged, tmp_path):
    chart = converged.time.proof_chart
    messages = []
    chart.message.connect(messages.append)
    assert chart.save_image(tmp_path / "proof.png")
    assert (tmp_path / "proof.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert chart.save_image(tmp_path / "proof.svg")
    assert "<svg" in (tmp_path / "proof.svg").read_text()
    assert chart.save_csv(tmp_path / "proof.csv")
    rows = list(csv.reader(io.StringIO((tmp_path / "proof.csv").read_text())))
    assert rows[0] == ["k", "A_k", "B_k", "ceiling C(k)"]
    along = chart._followed.proof.along
    assert [float(r[1]) for r in rows[1:]] == along.tolist()  # exact values
    mistakes = converged.time.mistakes_chart
    converged.time.tabs.setCurrentIndex(1)
    rows = list(csv.reader(io.StringIO(mistakes.csv_text())))
    assert rows[1:] == [
        [str(k), str(t)]
        for k, t in enumerate(converged.controller.simulation.mistake_trials().tolist(), 1)
    ]
    assert not chart.save_csv(tmp_path / "missing" / "proof.csv")
    assert not chart.save_image(tmp_path / "missing" / "proof.png")
    assert "Could not save" in messages[-1]
    QApplication.processEvents()


def test_view_menu_hides_and_shows_each_chart(qtbot):
    """The charts start hidden (the plot keeps its room); C, the menu or the timeline's
    Charts button shows them; each tab hides on its own, and the last one hides them all."""
    win = MainWindow(load_preset("separable"))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    tabs, area = win.time.tabs, win.findChild(QAction, "chartsAction")
    assert area is win.time.area_action and not area.isChecked() and not tabs.isVisible()
    plot_height = win.plot.height()
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    qtbot.keyClick(win, Qt.Key.Key_C)
    assert area.isChecked() and tabs.isVisible()
    QApplication.processEvents()
    assert tabs.height() >= 150 and win.plot.height() < plot_height
    assert win.findChild(QToolButton, "chartsButton").defaultAction() is area
    actions = {a.objectName(): a for a in win.time.page_actions}
    assert set(actions) == {
        "proofChartAction",
        "mistakesChartAction",
        "lossChartAction",
        "ledgerAction",
    }
    assert {a.objectName() for a in win.time.menu.actions()} >= {"chartsAction", *actions}
    for action in actions.values():
        action.setChecked(False)
    assert not tabs.isVisible() and not area.isChecked()
    actions["mistakesChartAction"].setChecked(True)
    assert tabs.isVisible() and area.isChecked()
    assert tabs.currentWidget().chart is win.time.mistakes_chart
    assert not tabs.isTabVisible(0)
    area.trigger()
    assert not tabs.isVisible()
    win.controller.undo_stack.setClean()


def test_a_thinned_curve_ends_in_an_exact_tip(qtbot):
    """Past its budget a curve draws every s-th step; the tip draws the steps after the
    last one drawn, exactly, and ends at the current trial."""
    win = make_window(qtbot, noisy(n=40, seed=1), Settings(), tab=1)
    chart = win.time.mistakes_chart
    chart.curve.budget = 16
    c = win.controller
    c.simulation.run(400, until_converged=False)
    c.step()
    times = c.simulation.mistake_trials().tolist()
    m = len(times)
    assert chart.curve.stride > 1 and m > 16
    x, y = chart.curve.data()
    tip_x, tip_y = chart.tip.getData()
    last = chart.curve.last_point
    assert (x[-1], y[-1]) == (tip_x[0], tip_y[0]) == (times[last], last + 1)
    steps = list(zip(tip_x[1:-1].tolist(), tip_y[1:-1].tolist(), strict=True))
    assert steps == [(float(times[i]), float(v)) for i in range(last + 1, m) for v in (i, i + 1)]
    assert (tip_x[-1], tip_y[-1]) == (401, m)
    c.undo_stack.setClean()


def test_during_a_run_the_weights_wait_for_a_batch_and_catch_up_when_it_stops(qtbot):
    win = make_window(qtbot, noisy(n=200, seed=4), Settings(), tab=2)
    c = win.controller
    chart = win.time.loss_chart
    now = [chart.clock()]
    chart.clock = lambda: now[0]  # time stands still unless the test moves it
    c.set_speed(1)  # no tick at once when the run starts
    c.run()
    c._timer.stop()  # running, as the views see it; the frames are driven here
    for _ in range(40):
        c.simulation.run(7, until_converged=False)
        c._publish()
    followed = chart._followed
    assert 0 < c.simulation.mistakes - len(followed.weights) < chart_base.FOLLOW_BATCH
    drawn = len(followed.weights)
    now[0] += chart_base.FOLLOW_EVERY  # a tenth of a second later: the next frame follows
    c.simulation.run(7, until_converged=False)
    c._publish()
    assert len(chart._followed.weights) == c.simulation.mistakes > drawn
    for _ in range(30):  # a slow run, one trial a frame: every mistake is followed at once
        c.simulation.run(1, until_converged=False)
        c._publish()
        assert len(chart._followed.weights) == c.simulation.mistakes
    c.simulation.run(50, until_converged=False)
    c._publish()
    c.pause()
    assert len(chart._followed.weights) == c.simulation.mistakes  # caught up when it stops
    x, _ = chart.weights[0].data()
    times = c.simulation.mistake_trials()
    assert x[-1] == times[chart.weights[0].last_point]
    c.undo_stack.setClean()


@pytest.mark.parametrize(
    ("preset", "settings", "second"),
    [
        ("separable", Settings(), "proof"),
        ("noisy", Settings(), "loss"),  # not separable: w after each mistake instead
        ("separable", Settings(algorithm="adaline"), "loss"),
    ],
)
def test_the_export_panel_draws_the_mistakes_and_the_chart_that_applies(
    qapp, preset, settings, second
):
    panel = charts.ChartPanel(400, 500)
    sim = Simulation.from_settings(load_preset(preset), settings)
    for _ in range(120):
        panel.show_frame(build_frame(sim))
        sim.step()
    frame = build_frame(sim)
    panel.show_frame(frame)
    chosen = getattr(panel, second)
    assert panel.second(frame) is chosen and chosen.isVisible()
    assert all(not c.isVisible() for c in (panel.proof, panel.loss) if c is not chosen)
    # The same incremental drawing as in the window, complete (no budget in an export).
    x, y = panel.mistakes.curve.data()
    assert y[-1] == sim.mistakes and x[-1] == sim.mistake_trials()[-1]
    if second == "proof":
        along, _ = proof_by_numpy(sim.dataset, sim.settings, sim.trials)
        np.testing.assert_allclose(panel.proof.along.data()[1], along, rtol=1e-12)
    image = QImage(400, 500, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    panel.paint(painter, QRectF(0, 0, 400, 500))
    painter.end()
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32).reshape(500, 400)
    for half in (pixels[:240], pixels[260:]):  # both charts drawn
        assert np.count_nonzero(half != 0xFFFFFFFF) > 2000
    panel.close_charts()


def test_charts_opened_after_a_run_show_the_whole_run(qtbot):
    """The charts and the ledger are built when first shown; built after a run, they show
    all of it, as charts open from the start would."""
    win = MainWindow(load_preset("separable"))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert win.findChildren(charts.MistakesChart) == []  # closed: not built
    c = win.controller
    c.simulation.run(10**5)
    c.step()  # a frame for the run so far
    win.time.area_action.trigger()  # C
    win.time.tabs.setCurrentIndex(1)  # a chart draws while it shows
    chart = win.findChild(charts.MistakesChart, "mistakesChart")
    assert chart is win.time.mistakes_chart and win.time.tabs.isVisible()
    _, records = independent_run(c.dataset, c.settings, c.simulation.trials)
    times = [t.number for t in records if t.mistake]
    x, y = chart.curve.data()  # drawn as it showed, all of it
    assert x.tolist() == [0.0] + [float(t) for t in times for _ in (0, 1)]
    assert y[-1] == len(times)
    win.time.tabs.setCurrentIndex(3)  # the ledger, as it shows
    assert win.time.ledger.model.rowCount() == c.simulation.trials
    c.undo_stack.setClean()


def test_the_proof_squeezes_k_for_the_multiclass_perceptron_in_kesslers_space():
    """K classes: w₀ and every w are W's rows in a row, the layout of the Kessler vectors
    that u*, γ_K and R_K are measured among (blobs3 used to crash the window when its
    charts were opened: (3, 3) against (9,))."""
    import numpy as np

    from simulator.engine import PRESET_SETTINGS, Simulation, load_preset
    from simulator.presentation.trace import trace_of

    sim = Simulation.from_settings(load_preset("blobs3"), PRESET_SETTINGS["blobs3"])
    sim.run(10_000)
    proof = trace_of(sim).followed(None, weights=True).proof
    k = np.arange(sim.mistakes + 1)
    assert proof.applies and len(proof.along) == len(k)
    assert np.all(proof.along >= k - 1e-9) and np.all(proof.norm <= k + 1e-9)  # A_k ≥ k ≥ B_k


@pytest.mark.parametrize("name", ["blobs3", "iris3", "disjunction", "cmu"])
def test_every_tab_of_the_charts_opens_on_the_presets(qtbot, window, name):
    from tests.helpers.driven import deliver_posted_events

    window.load_preset(name)
    for _ in range(8):
        window.controller.step()
    window.time.area_action.setChecked(True)
    for index in range(window.time.tabs.count()):
        window.time.tabs.setCurrentIndex(index)
        deliver_posted_events()
    assert window.time.tabs.isVisible()
