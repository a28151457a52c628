"""Three or more classes in the window: keys 1–9, glyphs and colours, regions, w_k arrows."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from simulator.engine import Dataset, Simulation, load_preset
from simulator.presentation.frame import build_frame
from simulator.ui.class_points import ClassLayers
from simulator.ui.plot_view import PlotView
from tests.ui.conftest import click

THREE = Dataset(
    [[0.0, 2.0], [0.5, 2.5], [2.0, -1.0], [2.5, -1.5], [-2.0, -1.0], [-2.5, -1.5]],
    [0, 0, 1, 1, 2, 2],
    class_names=("north", "east", "west"),
)


def press(window, key):
    QTest.keyClick(window.plot, getattr(Qt.Key, f"Key_{key}"))


def test_key_three_on_two_classes_adds_a_class_and_a_multiclass_learner_in_one_undo_step(
    qtbot, window
):
    window.controller.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0]], [1, -1]))
    before = window.controller.undo_stack.count()
    press(window, 3)
    window.plot.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    ds = window.controller.dataset
    assert ds.classes == (0, 1, 2)
    assert ds.labels.tolist() == [1, 0]  # +1 became class 1, −1 class 0
    assert window.controller.settings.algorithm == "multiclass-perceptron"
    assert window.controller.undo_stack.count() == before + 1
    click(qtbot, window.plot, -1.0, 1.0)
    assert window.controller.dataset.labels.tolist() == [1, 0, 2]
    assert "class 2" in window.controls.class_toggle.text()
    window.controller.undo_stack.undo()  # the point
    window.controller.undo_stack.undo()  # the classes and the learner, together
    assert window.controller.dataset.classes == (-1, 1)
    assert window.controller.settings.algorithm == "perceptron"


def test_keys_pick_the_class_a_click_adds_and_the_button_names_it(qtbot, window):
    window.controller.set_dataset(THREE)
    window.plot.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    press(window, 2)
    assert "class east" in window.controls.class_toggle.text()
    click(qtbot, window.plot, 1.0, 1.0)
    press(window, 1)
    click(qtbot, window.plot, -1.0, 1.0)
    assert window.controller.dataset.labels.tolist()[-2:] == [1, 0]
    # a right click on empty space adds nothing when there are more than two classes
    click(qtbot, window.plot, 0.0, -2.0, Qt.MouseButton.RightButton)
    assert len(window.controller.dataset) == len(THREE) + 2


def test_a_point_moves_to_another_class_from_its_menu(window):
    window.controller.set_dataset(THREE)
    menu = window.plot.point_menu(0)
    texts = [a.text() for a in menu.actions() if a.isVisible()]
    assert "Flip label" not in texts and "Class" in texts
    (submenu,) = [a.menu() for a in menu.actions() if a.text() == "Class"]
    classes = {a.text(): a for a in submenu.actions()}
    assert not classes["1: north"].isEnabled()  # its own class
    classes["3: west"].trigger()
    assert window.controller.dataset.labels[0] == 2
    window.flip_selected()  # nothing selected: nothing flips
    window.plot.set_selected(0)
    window.flip_selected()  # F on K classes: the next class, the last going to the first
    assert window.controller.dataset.labels[0] == 0


def test_three_class_data_switch_a_two_class_learner_and_say_so(window):
    assert window.controller.settings.algorithm == "perceptron"
    window.controller.set_dataset(load_preset("iris3"))
    assert window.controller.settings.algorithm == "multiclass-perceptron"
    assert "multiclass perceptron" in window.statusBar().currentMessage()


def test_a_two_class_learner_picked_for_three_classes_is_refused_in_one_line(window, dialogs):
    window.controller.set_dataset(THREE)
    window.controller.request_setting("algorithm", "winnow")
    assert window.controller.settings.algorithm == "multiclass-perceptron"
    said = window.statusBar().currentMessage() + " ".join(str(d) for d in dialogs.shown)
    assert "two classes" in said and "multiclass-perceptron" in said


def _frame(ds, algorithm="multiclass-perceptron", trials=0):
    sim = Simulation(ds, algorithm=algorithm)
    sim.run(trials)
    return build_frame(sim)


@pytest.fixture
def view(qtbot):
    plot = PlotView()
    qtbot.addWidget(plot)
    plot.resize(640, 480)
    plot.show()
    qtbot.waitExposed(plot)
    return plot


def test_each_class_has_its_own_glyph_and_colour(view):
    view.show_frame(_frame(THREE))
    for label in THREE.classes:
        drawn = view.points_of_class(label)
        np.testing.assert_array_equal(drawn, THREE.points[THREE.labels == label])
    symbols = ClassLayers.symbols(3)
    assert len({s.boundingRect().getRect() for s in symbols}) == 3  # three different shapes
    colours = {ClassLayers.colour(3, c).name() for c in THREE.classes}
    assert len(colours) == 3 and "#ff0000" not in colours and "#00ff00" not in colours


def test_the_legend_names_the_classes(view):
    view.set_show_legend(True)
    view.show_frame(_frame(THREE))
    texts = view.legend_texts()
    assert {"class north", "class east", "class west"} <= set(texts)
    assert "boundaries w_i·x = w_j·x" in texts


def test_regions_show_the_argmax_class_and_the_boundaries_border_two_regions(view):
    frame = _frame(THREE, trials=200)
    assert frame.snapshot.converged
    view.show_frame(frame)
    view.fit_view()
    view.show_frame(frame)
    image = view._regions.image
    assert view._regions.isVisible() and image is not None
    # the region under each point has its class's tint
    rect = view._regions.mapRectToParent(view._regions.boundingRect())
    for (x, y), label in zip(THREE.points, THREE.labels, strict=True):
        i = int((x - rect.left()) / rect.width() * image.shape[0])
        j = int((y - rect.top()) / rect.height() * image.shape[1])
        colour = ClassLayers.colour(3, int(label))
        assert tuple(image[i, j][:3]) == (colour.red(), colour.green(), colour.blue())
    # every traced boundary point is where the two best scores meet
    ends = view.drawn_curve("boundary")
    assert ends is not None and len(ends) > 10
    w = np.array(frame.snapshot.weights).reshape(3, -1)
    scores = np.column_stack((np.ones(len(ends)), ends)) @ w.T
    top = np.sort(scores, axis=1)
    spread = np.abs(w).sum(axis=1).max() * view.view_box().diagonal / 60
    assert np.all(top[:, -1] - top[:, -2] <= spread)


def test_one_arrow_per_class_in_the_direction_of_its_w(view):
    frame = _frame(THREE, trials=200)
    view.show_frame(frame)
    arrows = view.class_arrows()
    assert sorted(arrows) == [0, 1, 2]
    w = np.array(frame.snapshot.weights).reshape(3, -1)
    for k, (start, end) in arrows.items():
        direction = (end - start) / np.linalg.norm(end - start)
        expected = w[k, 1:] / np.linalg.norm(w[k, 1:])
        np.testing.assert_allclose(direction, expected, atol=1e-9)
        np.testing.assert_allclose(start, THREE.points[THREE.labels == k].mean(axis=0))
    assert view.arrow() is None  # no single w arrow for K classes


def test_a_multiclass_learner_on_two_classes_colours_minus_one_and_plus_one_as_their_glyphs(view):
    ds = load_preset("and")
    frame = _frame(ds, trials=100)
    view.show_frame(frame)
    image = view._regions.image
    rect = view._regions.mapRectToParent(view._regions.boundingRect())
    for (x, y), label in zip(ds.points, ds.labels, strict=True):
        i = int((x - rect.left()) / rect.width() * image.shape[0])
        j = int((y - rect.top()) / rect.height() * image.shape[1])
        colour = ClassLayers.colour(2, int(label))
        assert tuple(image[i, j][:3]) == (colour.red(), colour.green(), colour.blue())


def test_the_strip_writes_kesslers_vector_in_blocks_and_the_rows_that_moved():
    from simulator.presentation.explain import explain

    ds = Dataset([[2.0, 1.0], [0.0, -1.0], [-1.0, 0.0]], [0, 1, 2])
    sim = Simulation(ds, algorithm="kessler", bias=False)
    sim.step()  # point 1 (class 0) against class 1: z = (2, 1 | −2, −1 | 0, 0), a tie
    text = explain(build_frame(sim)).text()
    assert "z = (2, 1 | −2, −1 | 0, 0) (class 0 against 1)" in text
    assert "W ← W + η z = (0, 0 | 0, 0 | 0, 0) + 1·(2, 1 | −2, −1 | 0, 0)" in text
    sim.step()  # against class 2: W·z = w0·x − w2·x = 5 > 0
    text = explain(build_frame(sim)).text()
    assert "s = W·z = 5: w_0·x > w_2·x, correct." in text

    sim = Simulation(ds, algorithm="multiclass-perceptron", bias=False)
    # trial 1: all scores 0, a mistake: w1 = (2, 1), w2 = (−2, −1) (the lowest other);
    # trial 2: x = (0, −1), s = (−1, 1, 0), v = 1 − 0, right; trial 3: x = (−1, 0) of
    # class 2 (w3), s = (−2, 2, 0), v = 0 − 2: w3 += x, w2 −= x.
    sim.run(3)
    text = explain(build_frame(sim)).text()
    assert "v = s_y − max other s_k = -2" in text.replace("−2", "-2")
    assert "w3 += 1·x, w2 −= 1·x: W = (2, 1 | −2, −1 | 0, 0) → (2, 1 | −1, −1 | −1, 0)." in text


def test_the_panel_and_the_exported_header_name_kesslers_theory(window, tmp_path):
    from simulator.export.render import _header

    window.controller.set_dataset(load_preset("blobs3"))
    window.controller.request_setting("algorithm", "kessler")
    theory = window.theory
    assert theory.labels["gamma"].text() == "Data margin γ_K"
    assert theory.labels["radius"].text() == "Radius R_K"
    assert theory.bound_label.text() == "Bound R_K²/γ_K²"
    assert theory.theory_box.title() == "Theory (Kessler's vectors)"
    window.controller.step()
    lines = " ".join(" ".join(line) for line in _header(window.controller.frame, wide=True))
    assert "γ_K = " in lines and "R_K²/γ_K² = " in lines and "y = 0" in lines
    window.controller.set_dataset(load_preset("and"))
    window.controller.request_setting("algorithm", "perceptron")
    assert theory.labels["gamma"].text() == "Data margin γ*"
    assert theory.bound_label.text() == "Bound R²/γ*²"


def test_boundaries_are_traced_where_a_third_class_scores_between_the_two():
    from simulator.presentation.level_sets import partition_segments, sample

    # s_a = x, s_b = −x, s_c = 0: the regions a | b meet on x = 0, where c ties them both
    # and is second everywhere else (Kessler's W after its first update looks like this).
    w = np.array([[0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.0]])

    def scores(p):
        return np.column_stack((np.ones(len(p)), p)) @ w.T

    xs, ys, values = sample(scores, (-1.0, 1.0, -1.0, 1.0), 40)
    segments = partition_segments(xs, ys, values)
    assert len(segments) >= 30
    np.testing.assert_allclose(segments[:, :, 0], 0.0, atol=1e-12)


def test_the_strip_writes_the_kernel_sum_term_by_term_as_by_hand():
    from simulator.presentation.explain import explain

    # XOR with K_b(x, z) = (x·z + 1)² + 1 on the points (bias as the + 1): trials 1–3 are
    # mistakes on x₁ (−1), x₂ (+1), x₃ (+1); at x₄ = (1, 1): K_b = 2, 5, 5, f = −2 + 5 + 5.
    sim = Simulation(load_preset("xor"), algorithm="kernel-perceptron")
    sim.run(4)
    text = explain(build_frame(sim)).text()
    assert "f(x) = − 1·K_b(x₁, x) + 1·K_b(x₂, x) + 1·K_b(x₃, x) = − 1·2 + 1·5 + 1·5 = 8" in text
    assert "predicts +1, mistake" in text
