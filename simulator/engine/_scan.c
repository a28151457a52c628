/*
 * The loops NumPy cannot make fast: score upcoming trials until the first mistake, and
 * score every row of a feature matrix.
 *
 *   scan(X, w, c, theta, theta_err, bmax, e, theta_r, tie, labels, order, cyclic, start,
 *        stop, stop_at_mistake, out, offset, undecided) -> int
 *
 * For k = start .. stop-1, row i = k (cyclic) or order[k] of the row-major feature matrix
 * X (n x d, d = len(w)), computes v = y·s - offset (offset: a margin τ, usually 0) of
 *     s = x[0]*w[0];  s += x[1]*w[1];  ...;  s -= theta   (if theta != 0)
 * and decides the trial as runner.decide does:
 *     if |v| <= bmax:  b = |x[0]|*c[0];  b += |x[1]|*c[1]; ...;  b += theta_err
 *                      if |v| <= b:  v = 0          (a tie: floats cannot tell)
 *                      unless e (w's error bound) is not empty: then s2 = dot2(x, w)
 *                      - theta (twice the precision), v = y·s2 - offset, and if
 *                      |v| <= refine_bound the floats cannot decide: v = 0, its index
 *                      (k - start) goes to undecided[0], and the scan stops after it,
 *                      so that the learner's exact shadow decides it
 *     mistake  <=>  v < 0, or v is NaN, or v == 0 and the tie rule gives 0 the wrong sign
 * (tie 0 "mistake": always; 1 "positive": y = -1; 2 "negative": y = +1). It stores v in
 * out[k-start] and, if stop_at_mistake, stops after the first mistake. Returns how many
 * were scored. bmax bounds b over all rows, so b is computed only where it can matter.
 *
 *   dot(X, w, theta, out) -> None      out[i] = s of row i, as above (no decision)
 *   squared_error(X, w, theta, labels) -> float     sum of (y[i] - s_i)^2 in row order
 *
 * The arithmetic is exactly that of rules.dot_rows in NumPy: one rounded product, then one
 * rounded sum, feature by feature, left to right; y·s is exact (negation). Compile
 * without floating-point contraction (-ffp-contract=off): a fused multiply-add would round
 * once and give other bits. tests/engine/test_simulation.py checks the two agree bit for bit.
 *
 * Only the buffer protocol is used (no NumPy headers): X, w, c and out are C-contiguous
 * float64, labels int8, order intp, out writable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_kernels.h"

static int get_doubles(PyObject *object, Py_buffer *view, int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (view->itemsize != (Py_ssize_t)sizeof(double) || view->format == NULL ||
        view->format[0] != 'd' || view->format[1] != '\0') {
        PyErr_Format(PyExc_TypeError, "%s must be float64", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    PyObject *X_object, *w_object, *c_object, *e_object, *out_object;
    double theta, theta_err, theta_r, bmax, offset;
    int tie, cyclic, stop_at_mistake;
    Py_buffer labels, order, flag;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "OOOdddOdiy*y*pnnpOdw*", &X_object, &w_object, &c_object,
                          &theta, &theta_err, &bmax, &e_object, &theta_r, &tie, &labels,
                          &order, &cyclic, &start, &stop, &stop_at_mistake, &out_object,
                          &offset, &flag)) {
        return NULL;
    }
    Py_ssize_t *undecided = (Py_ssize_t *)flag.buf;
    Py_buffer Xv, wv, cv, rv, outv;
    int held = 0;
    Py_ssize_t scored = -1;
    if (get_doubles(X_object, &Xv, 0, "X") < 0) goto done;
    held = 1;
    if (get_doubles(w_object, &wv, 0, "w") < 0) goto done;
    held = 2;
    if (get_doubles(c_object, &cv, 0, "c") < 0) goto done;
    held = 3;
    if (get_doubles(out_object, &outv, 1, "out") < 0) goto done;
    held = 4;
    if (get_doubles(e_object, &rv, 0, "e") < 0) goto done;
    held = 5;
    Py_ssize_t d = wv.len / (Py_ssize_t)sizeof(double);
    if (d < 1 || cv.len != wv.len || Xv.len % wv.len != 0 || tie < 0 || tie > 2 ||
        (rv.len != 0 && rv.len != wv.len)) {
        PyErr_SetString(PyExc_ValueError,
                        "scan: X must have len(w) = len(c) >= 1 columns, e 0 or len(w)");
        goto done;
    }
    const double *e = (const double *)rv.buf;
    int refine = rv.len != 0;
    Py_ssize_t n = Xv.len / wv.len;
    const double *x = (const double *)Xv.buf, *w = (const double *)wv.buf;
    const double *c = (const double *)cv.buf;
    const signed char *y = (const signed char *)labels.buf;
    const Py_ssize_t *rows = (const Py_ssize_t *)order.buf;
    double *result = (double *)outv.buf;
    Py_ssize_t order_length = order.len / (Py_ssize_t)sizeof(Py_ssize_t);
    if (labels.len < n || start < 0 || stop < start || stop > n ||
        (!cyclic && stop > order_length) || flag.len < (Py_ssize_t)sizeof(Py_ssize_t) ||
        outv.len / (Py_ssize_t)sizeof(double) < stop - start) {
        PyErr_SetString(PyExc_ValueError, "scan: buffers too short for start..stop");
        goto done;
    }
    Py_ssize_t k = start;
    double sums[4];
    Py_ssize_t ahead = 0; /* rows of `sums` scored ahead, from row k on */
    for (; k < stop; k++) {
        Py_ssize_t i = cyclic ? k : rows[k];
        if (i < 0 || i >= n) {
            PyErr_SetString(PyExc_IndexError, "scan: row out of range");
            goto done;
        }
        const double *row = x + i * d;
        double s;
        if (ahead == 0 && d >= 8 && stop - k >= 4) {
            Py_ssize_t r[4];
            for (int q = 0; q < 4; q++) {
                r[q] = cyclic ? k + q : rows[k + q];
                if (r[q] < 0 || r[q] >= n) {
                    PyErr_SetString(PyExc_IndexError, "scan: row out of range");
                    goto done;
                }
            }
            dot4(x + r[0] * d, x + r[1] * d, x + r[2] * d, x + r[3] * d, w, d, sums);
            ahead = 4;
        }
        if (ahead > 0) {
            s = sums[4 - ahead];
            ahead--;
        } else {
            s = dot1(row, w, d);
        }
        if (theta != 0.0) s -= theta;
        double v = (y[i] > 0 ? s : -s) - offset;
        int exact = 0;
        if (fabs(v) <= bmax) {
            double b = fabs(row[0]) * c[0];
            for (Py_ssize_t j = 1; j < d; j++) b += fabs(row[j]) * c[j];
            b += theta_err;
            if (fabs(v) <= b) {
                v = refine ? refined(row, w, e, d, theta, theta_r, y[i], offset) : 0.0;
                if (v != v) { /* undecided: the exact shadow decides (the caller) */
                    v = 0.0;
                    exact = 1;
                }
            }
        }
        result[k - start] = v;
        if (exact) {
            undecided[0] = k - start;
            k++;
            break;
        }
        int mistake = is_mistake(v, y[i], tie);
        if (mistake && stop_at_mistake) {
            k++;
            break;
        }
    }
    scored = k - start;
done:
    if (held >= 5) PyBuffer_Release(&rv);
    if (held >= 4) PyBuffer_Release(&outv);
    if (held >= 3) PyBuffer_Release(&cv);
    if (held >= 2) PyBuffer_Release(&wv);
    if (held >= 1) PyBuffer_Release(&Xv);
    PyBuffer_Release(&labels);
    PyBuffer_Release(&order);
    PyBuffer_Release(&flag);
    return scored < 0 ? NULL : PyLong_FromSsize_t(scored);
}

static PyObject *dot(PyObject *self, PyObject *args) {
    PyObject *X_object, *w_object, *out_object;
    double theta;
    if (!PyArg_ParseTuple(args, "OOdO", &X_object, &w_object, &theta, &out_object)) return NULL;
    Py_buffer Xv, wv, outv;
    int held = 0, ok = 0;
    if (get_doubles(X_object, &Xv, 0, "X") < 0) goto done;
    held = 1;
    if (get_doubles(w_object, &wv, 0, "w") < 0) goto done;
    held = 2;
    if (get_doubles(out_object, &outv, 1, "out") < 0) goto done;
    held = 3;
    Py_ssize_t d = wv.len / (Py_ssize_t)sizeof(double);
    if (d < 1 || Xv.len % wv.len != 0 || outv.len * d != Xv.len) {
        PyErr_SetString(PyExc_ValueError, "dot: X must be (len(out), len(w)), len(w) >= 1");
        goto done;
    }
    Py_ssize_t n = Xv.len / wv.len;
    const double *x = (const double *)Xv.buf, *w = (const double *)wv.buf;
    double *result = (double *)outv.buf;
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const double *row = x + i * d;
        dot4(row, row + d, row + 2 * d, row + 3 * d, w, d, result + i);
    }
    for (; i < n; i++) result[i] = dot1(x + i * d, w, d);
    if (theta != 0.0)
        for (i = 0; i < n; i++) result[i] -= theta;
    ok = 1;
done:
    if (held >= 3) PyBuffer_Release(&outv);
    if (held >= 2) PyBuffer_Release(&wv);
    if (held >= 1) PyBuffer_Release(&Xv);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *squared_error(PyObject *self, PyObject *args) {
    PyObject *X_object, *w_object;
    double theta;
    Py_buffer labels;
    if (!PyArg_ParseTuple(args, "OOdy*", &X_object, &w_object, &theta, &labels)) return NULL;
    Py_buffer Xv, wv;
    int held = 0, ok = 0;
    double total = 0.0;
    if (get_doubles(X_object, &Xv, 0, "X") < 0) goto done;
    held = 1;
    if (get_doubles(w_object, &wv, 0, "w") < 0) goto done;
    held = 2;
    Py_ssize_t d = wv.len / (Py_ssize_t)sizeof(double);
    if (d < 1 || Xv.len % wv.len != 0 || labels.len * wv.len != Xv.len) {
        PyErr_SetString(PyExc_ValueError, "squared_error: X must be (len(y), len(w))");
        goto done;
    }
    Py_ssize_t n = labels.len;
    const double *x = (const double *)Xv.buf, *w = (const double *)wv.buf;
    const signed char *y = (const signed char *)labels.buf;
    for (Py_ssize_t i = 0; i < n; i += 4) {
        double s[4];
        Py_ssize_t m = n - i < 4 ? n - i : 4;
        if (m == 4) {
            const double *row = x + i * d;
            dot4(row, row + d, row + 2 * d, row + 3 * d, w, d, s);
        } else {
            for (Py_ssize_t q = 0; q < m; q++) s[q] = dot1(x + (i + q) * d, w, d);
        }
        for (Py_ssize_t q = 0; q < m; q++) {
            double r = (double)y[i + q] - (theta != 0.0 ? s[q] - theta : s[q]);
            total += r * r;
        }
    }
    ok = 1;
done:
    if (held >= 2) PyBuffer_Release(&wv);
    if (held >= 1) PyBuffer_Release(&Xv);
    PyBuffer_Release(&labels);
    return ok ? PyFloat_FromDouble(total) : NULL;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "Score and decide trials until the first mistake (_scan.c)."},
    {"dot", dot, METH_VARARGS, "Score every row: s = x·w - theta, left to right (_scan.c)."},
    {"squared_error", squared_error, METH_VARARGS, "Sum of (y - s)^2 in row order (_scan.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
