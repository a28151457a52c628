/*
 * The learning loop of the learners whose update is one of a few families: the whole run of
 * trials between two things Python must see (a verdict floats cannot decide, a refused
 * update, the end of a stretch) in compiled code, with the same bits as the learners'
 * NumPy code (tests/engine check the two trajectories are equal).
 *
 *   learn(X, labels, order, cyclic, start, stop, family, rate, theta, offset, tie,
 *         w, e, counts, largest, stop_at_mistake, budget, out, found, w_before, e_before,
 *         status, scale, certain) -> int  (trials scored)
 *
 * family 1 additive (the perceptron): w += (rate·y)·x;
 *        2 multiplicative (Winnow): w_j *= pow(rate, y·x_j);
 *        3 balanced (Balanced Winnow): w = (w⁺, w⁻), w⁺_j *= pow(rate, y·x_j),
 *          w⁻_j *= pow(rate, -y·x_j), scored with w⁺ − w⁻.
 *        4 EG± (rate = 2ηU, scale = U): w = (w⁺, w⁻), r_j = exp(rate·y·x_j),
 *          Z = Σ_j (w⁺_j r_j + w⁻_j / r_j), w⁺_j = U·w⁺_j·r_j/Z, w⁻_j = U·w⁻_j/r_j/Z,
 *          scored with w⁺ − w⁻ (learners.eg's update, the same operations in the same order).
 *        5 the multiclass perceptron (scale = K classes, labels 0 … K−1): w = the K rows of
 *          W, s_k = w_k·x; v = s_y − s_j, j the first argmax of the other classes (NumPy's
 *          argmax); a mistake makes w_y += rate·x, w_j += (−rate)·x (learners.multiclass's
 *          learn). v is decided, as MulticlassPerceptron.signed_scores decides it, where
 *          |v| > 2(b_y + b_j), b_k the rounding bound of s_k (tie_terms of row k); else it is
 *          undecided (status 2). A mistake whose runner-up floats cannot pick (another
 *          class's score within 2(b_k + b_j) of s_j: runner_up) is left to Python (status 5).
 * certain (empty: every verdict is exact) gets 0 at a verdict of a learner that cannot be
 * exact whose |v| is below 1e-9·(Σ|w_j x_j| + |θ|), as verdicts.Judge marks them.
 * e, the weights' rounding-error bounds, is carried along as learners.perceptron's
 * propagate_additive_error and learners.winnow's propagate_error do (empty: no bound);
 * the verdict on v = y·s − offset is decided as _scan.c decides it. counts (when given: n
 * rows of one column, K columns for family 5) adds y to row i's for each update of row i
 * (family 5: +1 in column y, −1 in column j). found[] gets the positions of the mistakes; w_before and
 * e_before the weights before the last update. status[0]: 0 the stretch ended; 1 stopped
 * after a mistake (stop_at_mistake); 2 the verdict at position status[1] is undecided (v
 * written as 0; Python decides it exactly and learns from it); 3 the update at position
 * status[1] would overflow (a weight beyond 1e150, or 0 for the multiplicative families)
 * and was not made; 4 `budget` updates were made; 5 the update of the mistake at position
 * status[1] was not made (Python makes it: family 5's runner-up is undecided). status[2]:
 * how many mistakes were found.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_kernels.h"

#define MAX_D 65536
#define SUM_LIMIT 8796093022208.0  /* 2^43 */
#define INTEGER_LIMIT 9007199254740992.0 /* 2^53 */
#define OVERFLOW 1e150
#define SMALLEST_NORMAL 2.2250738585072014e-308

typedef struct {
    const double *x;
    const signed char *y;
    const Py_ssize_t *order;
    Py_ssize_t n, d, size; /* rows, features, weights (d, 2d balanced, K·d multiclass) */
    Py_ssize_t classes, runner_up; /* K (1 but for family 5); j of the last verdict */
    int cyclic, family, tie, bounded, stop_at_mistake;
    double rate, theta, offset, largest, scale;
    unsigned char *certain;
    double *w, *e, *w_before, *e_before;
    long long *counts;
    /* derived after each update */
    double *weff, *eeff, *c, *factors;
    double *scores, *class_bmax; /* family 5: s_k of the row; each row's bmax */
    double theta_err, theta_r, bmax;
    int exact_rate, whole_rate, power_of_two;
    double log_rate;
} Run;

/* Family 5: tie_terms of each row w_k of W (theta 0) into c (K·d), and each row's bmax. */
static void class_terms(Run *r) {
    Py_ssize_t d = r->d;
    double gamma = (double)d * U / (1.0 - (double)d * U);
    double inflation = 1.0 + 4.0 * (double)(d + 2) * U;
    double k1 = (1.0 + 2.0 * U) * inflation, k2 = (gamma + 3.0 * U) * inflation;
    r->theta_err = 4.0 * U * fabs(r->theta) + (double)(d + 2) * 4.9406564584124654e-324;
    for (Py_ssize_t k = 0; k < r->classes; k++) {
        double total = 0.0;
        for (Py_ssize_t j = k * d; j < (k + 1) * d; j++) {
            r->c[j] = r->e[j] * k1 + fabs(r->w[j]) * k2;
            total += r->c[j];
        }
        r->class_bmax[k] = 2.0 * (r->largest * total + r->theta_err) * (1.0 + 8.0 * (double)d * U);
    }
}

/* tie_terms and the bmax of runner.terms for the effective weights. */
static void refresh(Run *r) {
    Py_ssize_t d = r->d;
    if (r->family == 5) {
        class_terms(r);
        return;
    }
    if (r->family >= 3) {
        for (Py_ssize_t j = 0; j < d; j++) {
            r->weff[j] = r->w[j] - r->w[d + j];
            if (r->bounded) {
                r->eeff[j] = (r->e[j] + r->e[d + j]) * (1.0 + 2.0 * U) +
                             2.0 * U * fabs(r->w[j] - r->w[d + j]);
            }
        }
    } else {
        for (Py_ssize_t j = 0; j < d; j++) {
            r->weff[j] = r->w[j];
            if (r->bounded) r->eeff[j] = r->e[j];
        }
    }
    if (!r->bounded) {
        r->bmax = 0.0;
        return;
    }
    double gamma = (double)d * U / (1.0 - (double)d * U);
    double inflation = 1.0 + 4.0 * (double)(d + 2) * U;
    double k1 = (1.0 + 2.0 * U) * inflation, k2 = (gamma + 3.0 * U) * inflation;
    double total = 0.0;
    for (Py_ssize_t j = 0; j < d; j++) {
        r->c[j] = r->eeff[j] * k1 + fabs(r->weff[j]) * k2;
        total += r->c[j];
    }
    r->theta_err = 4.0 * U * fabs(r->theta) + (double)(d + 2) * 4.9406564584124654e-324;
    r->bmax = 2.0 * (r->largest * total + r->theta_err) * (1.0 + 8.0 * (double)d * U);
}

/* v of row i, decided: 0 for a tie; *undecided set where even twice the precision cannot
 * tell (v is then 0, and the exact shadow must decide). */
static double verdict(const Run *r, Py_ssize_t i, int *undecided) {
    const double *row = r->x + i * r->d;
    double s = dot1(row, r->weff, r->d);
    if (r->theta != 0.0) s -= r->theta;
    double v = (r->y[i] > 0 ? s : -s) - r->offset;
    if (fabs(v) <= r->bmax) {
        double b = fabs(row[0]) * r->c[0];
        for (Py_ssize_t j = 1; j < r->d; j++) b += fabs(row[j]) * r->c[j];
        b += r->theta_err;
        if (fabs(v) <= b) {
            if (!r->bounded) return 0.0;
            v = refined(row, r->weff, r->eeff, r->d, r->theta, r->theta_r, r->y[i], r->offset);
            if (v != v) {
                *undecided = 1;
                return 0.0;
            }
        }
    }
    return v;
}

/* Family 5: b_k of row x, as MulticlassPerceptron._bounds computes it (left to right). */
static double class_bound(const Run *r, const double *row, Py_ssize_t k) {
    const double *c = r->c + k * r->d;
    double b = fabs(row[0]) * c[0];
    for (Py_ssize_t j = 1; j < r->d; j++) b += fabs(row[j]) * c[j];
    return b + r->theta_err;
}

/* Family 5: v = s_y − s_j of row i, j (kept in r->runner_up) the first argmax of the other
 * classes' scores (s_y taken as −inf; a NaN is the argmax, as NumPy's); *undecided set where
 * |v| <= 2(b_y + b_j) (or v is NaN), as signed_scores leaves it uncertain (v then 0). */
static double class_verdict(Run *r, Py_ssize_t i, int *undecided) {
    const double *row = r->x + i * r->d;
    Py_ssize_t y = r->y[i], best = 0;
    double top = 0.0;
    for (Py_ssize_t k = 0; k < r->classes; k++) r->scores[k] = dot1(row, r->w + k * r->d, r->d);
    for (Py_ssize_t k = 0; k < r->classes; k++) {
        double s = k == y ? -INFINITY : r->scores[k];
        if (k == 0 || s != s || s > top) {
            best = k;
            top = s;
            if (s != s) break;
        }
    }
    r->runner_up = best;
    double v = r->scores[y] - top;
    if (fabs(v) > 2.0 * (r->class_bmax[y] + r->class_bmax[best])) return v;
    double reach = class_bound(r, row, y) + class_bound(r, row, best);
    if (fabs(v) > 2.0 * reach) return v;
    *undecided = 1;
    return 0.0;
}

/* Family 5: whether the runner-up j of row i's mistake is the one runner_up picks without
 * exact arithmetic: no other class k ≠ y has s_k >= s_j − 2(b_k + b_j). */
static int runner_up_certain(const Run *r, Py_ssize_t i) {
    const double *row = r->x + i * r->d;
    Py_ssize_t y = r->y[i], j = r->runner_up;
    double bj = class_bound(r, row, j);
    for (Py_ssize_t k = 0; k < r->classes; k++) {
        if (k == y || k == j) continue;
        if (!(r->scores[k] < r->scores[j] - 2.0 * (r->class_bmax[k] + r->class_bmax[j])) &&
            r->scores[k] >= r->scores[j] - 2.0 * (class_bound(r, row, k) + bj))
            return 0;
    }
    return 1;
}

/* propagate_additive_error for one weight. */
static double additive_error(const Run *r, double xj, double wj, double nj, double ej) {
    double ax = fabs(xj), eta = r->rate;
    int exact = xj == 0.0;
    if (!exact && r->exact_rate && fabs(wj) < SUM_LIMIT && fabs(nj) < SUM_LIMIT &&
        ax * eta < SUM_LIMIT && (wj * 256.0) == floor(wj * 256.0) && written_exactly(xj))
        exact = 1;
    if (!exact && r->whole_rate && fabs(wj) < INTEGER_LIMIT && fabs(nj) < INTEGER_LIMIT &&
        ax * eta < INTEGER_LIMIT && wj == floor(wj) && xj == floor(xj))
        exact = 1;
    if (exact) return ej;
    return ax * (4.0 * U * eta) + fabs(nj) * (2.0 * U) + ej * (1.0 + 4.0 * U);
}

/* Winnow's propagate_error for one weight, multiplied by m = pow(rate, y·x). */
static double winnow_error(const Run *r, double xj, double m, double nj, double ej) {
    int exact = xj == 0.0 ||
                (r->power_of_two && xj == floor(xj) && fabs(nj) >= SMALLEST_NORMAL);
    if (exact) return ej * m;
    return ej * m * (1.0 + 4.0 * U) + U * fabs(nj) * (4.0 + fabs(xj) * (2.0 + 2.0 * r->log_rate));
}

/* The update of row i with label y into w (and e); 0 if it is refused (not made). */
static int update(Run *r, Py_ssize_t i, double *nw, double *ne) {
    const double *row = r->x + i * r->d;
    double y = (double)r->y[i];
    Py_ssize_t d = r->d;
    Py_ssize_t moved[2] = {(Py_ssize_t)r->y[i], r->runner_up}; /* family 5: rows y and j */
    if (r->family == 1) {
        double f = r->rate * y;
        for (Py_ssize_t j = 0; j < d; j++) nw[j] = r->w[j] + f * row[j];
    } else if (r->family == 5) {
        memcpy(nw, r->w, (size_t)r->size * sizeof(double));
        for (int m = 0; m < 2; m++) {
            double f = m ? -r->rate : r->rate;
            for (Py_ssize_t j = moved[m] * d; j < (moved[m] + 1) * d; j++)
                nw[j] = r->w[j] + f * row[j % d];
        }
    } else if (r->family == 4) {
        double f = r->rate * y, z = 0.0;
        for (Py_ssize_t j = 0; j < d; j++) {
            double m = exp(f * row[j]);
            r->factors[j] = m;
            z += r->w[j] * m + r->w[d + j] / m;
        }
        for (Py_ssize_t j = 0; j < d; j++) {
            nw[j] = r->scale * r->w[j] * r->factors[j] / z;
            nw[d + j] = r->scale * r->w[d + j] / r->factors[j] / z;
        }
    } else {
        for (Py_ssize_t half = 0; half < (r->family == 3 ? 2 : 1); half++) {
            double sign = half ? -y : y;
            for (Py_ssize_t j = 0; j < d; j++) {
                double m = pow(r->rate, sign * row[j]);
                nw[half * d + j] = r->w[half * d + j] * m;
                if (r->bounded)
                    ne[half * d + j] = winnow_error(r, row[j], m, nw[half * d + j],
                                                    r->e[half * d + j]);
            }
        }
    }
    for (Py_ssize_t j = 0; j < r->size; j++) {
        if (!(nw[j] >= -OVERFLOW && nw[j] <= OVERFLOW)) return 0;
        if (r->family != 1 && r->family != 5 && nw[j] == 0.0) return 0;
    }
    if (r->family == 1 && r->bounded) {
        for (Py_ssize_t j = 0; j < d; j++) ne[j] = additive_error(r, row[j], r->w[j], nw[j], r->e[j]);
    } else if (r->family == 5) {
        memcpy(ne, r->e, (size_t)r->size * sizeof(double));
        for (int m = 0; m < 2; m++)
            for (Py_ssize_t j = moved[m] * d; j < (moved[m] + 1) * d; j++)
                ne[j] = additive_error(r, row[j % d], r->w[j], nw[j], r->e[j]);
    }
    memcpy(r->w_before, r->w, (size_t)r->size * sizeof(double));
    memcpy(r->w, nw, (size_t)r->size * sizeof(double));
    if (r->bounded) {
        memcpy(r->e_before, r->e, (size_t)r->size * sizeof(double));
        memcpy(r->e, ne, (size_t)r->size * sizeof(double));
    }
    return 1;
}

static Py_ssize_t run_loop(Run *r, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t budget,
                           double *out, Py_ssize_t *found, Py_ssize_t *status) {
    double *next_w = (double *)PyMem_Malloc(2 * (size_t)r->size * sizeof(double));
    if (next_w == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *next_e = next_w + r->size;
    Py_ssize_t k = start, made = 0, nfound = 0;
    status[0] = 0;
    refresh(r);
    for (; k < stop; k++) {
        Py_ssize_t i = r->cyclic ? k : r->order[k];
        int undecided = 0;
        if (r->family == 5 && (r->y[i] < 0 || r->y[i] >= r->classes)) {
            PyErr_SetString(PyExc_ValueError, "learn: a label beyond the classes");
            PyMem_Free(next_w);
            return -1;
        }
        double v = r->family == 5 ? class_verdict(r, i, &undecided) : verdict(r, i, &undecided);
        out[k - start] = v;
        if (r->certain != NULL) { /* verdicts.Judge._approximate_certainty */
            const double *row = r->x + i * r->d;
            double size = fabs(row[0]) * fabs(r->weff[0]);
            for (Py_ssize_t j = 1; j < r->d; j++) size += fabs(row[j]) * fabs(r->weff[j]);
            size = size + fabs(r->theta);
            if (fabs(v) < 1e-9 * size) r->certain[k - start] = 0;
        }
        if (undecided) { /* Python decides it exactly, and learns from it */
            status[0] = 2;
            status[1] = k;
            k++;
            break;
        }
        if (!is_mistake(v, r->y[i], r->tie)) continue;
        found[nfound++] = k;
        if (r->family == 5 && !runner_up_certain(r, i)) { /* Python picks j exactly */
            status[0] = 5;
            status[1] = k;
            k++;
            break;
        }
        if (v != v || !update(r, i, next_w, next_e)) { /* overflowed: Python stops */
            status[0] = 3;
            status[1] = k;
            k++;
            break;
        }
        if (r->counts != NULL && r->family == 5) {
            r->counts[i * r->classes + r->y[i]] += 1;
            r->counts[i * r->classes + r->runner_up] -= 1;
        } else if (r->counts != NULL) {
            r->counts[i] += r->y[i];
        }
        refresh(r);
        made++;
        if (r->stop_at_mistake) {
            status[0] = 1;
            k++;
            break;
        }
        if (budget > 0 && made >= budget) {
            status[0] = 4;
            k++;
            break;
        }
    }
    status[2] = nfound;
    PyMem_Free(next_w);
    return k - start;
}

static int buffer(PyObject *object, Py_buffer *view, int writable, Py_ssize_t itemsize,
                  const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "learn: %s has items of the wrong size", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#define NBUF 12

static PyObject *learn(PyObject *self, PyObject *args) {
    PyObject *objects[NBUF];
    Py_buffer views[NBUF];
    /* X, labels, order, w, e, counts, out, found, w_before, e_before, status, certain */
    static const Py_ssize_t sizes[NBUF] = {8, 1, (Py_ssize_t)sizeof(Py_ssize_t), 8, 8, 8, 8,
                                           (Py_ssize_t)sizeof(Py_ssize_t), 8, 8,
                                           (Py_ssize_t)sizeof(Py_ssize_t), 1};
    static const int writable[NBUF] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const char *names[NBUF] = {"X", "labels", "order", "w", "e", "counts", "out",
                                      "found", "w_before", "e_before", "status", "certain"};
    Run r;
    Py_ssize_t start, stop, budget;
    if (!PyArg_ParseTuple(args, "OOOpnnidddiOOOdpnOOOOOdO", &objects[0], &objects[1],
                          &objects[2], &r.cyclic, &start, &stop, &r.family, &r.rate, &r.theta,
                          &r.offset, &r.tie, &objects[3], &objects[4], &objects[5], &r.largest,
                          &r.stop_at_mistake, &budget, &objects[6], &objects[7], &objects[8],
                          &objects[9], &objects[10], &r.scale, &objects[11]))
        return NULL;
    int held = 0;
    Py_ssize_t scored = -1;
    for (; held < NBUF; held++)
        if (buffer(objects[held], &views[held], writable[held], sizes[held], names[held]) < 0)
            goto done;
    r.size = views[3].len / 8;
    r.classes = r.family == 5 && r.scale >= 2.0 && r.scale <= 1024.0 ? (Py_ssize_t)r.scale : 1;
    r.d = r.family == 5 ? r.size / r.classes : r.family >= 3 ? r.size / 2 : r.size;
    r.n = r.d ? views[0].len / 8 / r.d : 0;
    r.bounded = views[4].len != 0;
    int classes_wrong = r.family == 5 &&
                        (r.classes < 2 || (double)r.classes != r.scale ||
                         r.size != r.classes * r.d || !r.bounded || r.theta != 0.0 ||
                         r.offset != 0.0 || views[11].len != 0);
    if (r.d < 1 || r.d > MAX_D || r.family < 1 || r.family > 5 || r.tie < 0 || r.tie > 2 ||
        classes_wrong ||
        views[0].len != r.n * r.d * 8 || views[1].len < r.n ||
        (r.bounded && views[4].len != views[3].len) || start < 0 || stop < start ||
        stop > r.n || (!r.cyclic && views[2].len / (Py_ssize_t)sizeof(Py_ssize_t) < stop) ||
        views[6].len / 8 < stop - start ||
        views[7].len / (Py_ssize_t)sizeof(Py_ssize_t) < stop - start ||
        views[8].len != views[3].len || views[9].len != views[4].len ||
        (views[5].len != 0 && views[5].len != r.n * r.classes * 8) ||
        views[10].len < 3 * (Py_ssize_t)sizeof(Py_ssize_t) ||
        (views[11].len != 0 && views[11].len < stop - start) || (r.family == 4 && r.bounded)) {
        PyErr_SetString(PyExc_ValueError, "learn: buffers of the wrong sizes");
        goto done;
    }
    r.x = (const double *)views[0].buf;
    r.y = (const signed char *)views[1].buf;
    r.order = (const Py_ssize_t *)views[2].buf;
    r.w = (double *)views[3].buf;
    r.e = (double *)views[4].buf;
    r.counts = views[5].len ? (long long *)views[5].buf : NULL;
    r.w_before = (double *)views[8].buf;
    r.e_before = (double *)views[9].buf;
    r.certain = views[11].len ? (unsigned char *)views[11].buf : NULL;
    r.exact_rate = written_exactly(r.rate);
    r.whole_rate = r.exact_rate && r.rate == floor(r.rate);
    int exponent;
    r.power_of_two = frexp(r.rate, &exponent) == 0.5;
    r.log_rate = fabs(log(r.rate));
    {
        double gamma = (double)(r.d + 1) * U / (1.0 - (double)(r.d + 1) * U);
        double inflation = 1.0 + 4.0 * (double)(r.d + 2) * U;
        r.theta_r = (gamma * gamma * fabs(r.theta)) * inflation + (double)(2 * r.d + 4) *
                    4.9406564584124654e-324;
        if (!written_exactly(r.theta))
            r.theta_r = ((U * (1.0 + 2.0 * U) * fabs(r.theta)) + gamma * gamma * fabs(r.theta)) *
                            inflation +
                        (double)(2 * r.d + 4) * 4.9406564584124654e-324;
    }
    /* weff, eeff, factors (d each), c (K·d), the scores and each row's bmax (K each) */
    size_t length = 3 * (size_t)r.d + (size_t)r.classes * ((size_t)r.d + 2);
    double *scratch = (double *)PyMem_Malloc(length * sizeof(double));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    r.weff = scratch;
    r.eeff = scratch + r.d;
    r.factors = scratch + 2 * r.d;
    r.c = scratch + 3 * r.d;
    r.scores = r.c + r.classes * r.d;
    r.class_bmax = r.scores + r.classes;
    r.runner_up = 0;
    scored = run_loop(&r, start, stop, budget, (double *)views[6].buf, (Py_ssize_t *)views[7].buf,
                      (Py_ssize_t *)views[10].buf);
    PyMem_Free(scratch);
done:
    for (int k = 0; k < held; k++) PyBuffer_Release(&views[k]);
    return scored < 0 ? NULL : PyLong_FromSsize_t(scored);
}

static PyMethodDef methods[] = {
    {"learn", learn, METH_VARARGS,
     "Score, decide and learn from trials until Python must see one (_learn.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_learn", NULL, -1, methods};

PyMODINIT_FUNC PyInit__learn(void) { return PyModule_Create(&module); }
