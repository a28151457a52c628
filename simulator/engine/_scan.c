/*
 * The one loop NumPy cannot make fast: score upcoming trials until the first mistake.
 *
 *   scan(columns, weights, theta, labels, order, cyclic, start, stop, out) -> int
 *
 * For k = start .. stop-1, row i = k (cyclic) or order[k], computes
 *     v = z[i,0]*w[0];  v += z[i,1]*w[1];  ...;  v -= theta*labels[i]   (if theta != 0)
 * where z = y x are the label-signed feature columns, stores v (= y·s) in out[k-start],
 * and stops after the first v that is not > 0 (a mistake, or a non-finite score).
 * Returns how many were scored.
 *
 * The arithmetic is exactly that of rules.Rule.signed_scores in NumPy: one rounded
 * product, then one rounded sum, column by column, left to right. Compile without
 * floating-point contraction (-ffp-contract=off): a fused multiply-add would round once
 * and give other bits. tests/engine/test_simulation.py checks the two agree bit for bit.
 *
 * Only the buffer protocol is used (no NumPy headers): columns are C-contiguous float64,
 * labels int8, order intp, out float64 and writable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_COLUMNS 64

static PyObject *scan(PyObject *self, PyObject *args) {
    PyObject *columns, *weights;
    double theta;
    Py_buffer labels, order, out;
    int cyclic;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!O!dy*y*pnnw*", &PyTuple_Type, &columns, &PyTuple_Type,
                          &weights, &theta, &labels, &order, &cyclic, &start, &stop, &out)) {
        return NULL;
    }
    Py_ssize_t d = PyTuple_GET_SIZE(columns);
    Py_buffer views[MAX_COLUMNS];
    const double *col[MAX_COLUMNS];
    double w[MAX_COLUMNS];
    Py_ssize_t held = 0, scored = -1;
    if (d < 1 || d > MAX_COLUMNS || PyTuple_GET_SIZE(weights) != d) {
        PyErr_SetString(PyExc_ValueError, "scan: 1 to 64 columns, one weight each");
        goto done;
    }
    for (Py_ssize_t j = 0; j < d; j++) {
        w[j] = PyFloat_AsDouble(PyTuple_GET_ITEM(weights, j));
        if (w[j] == -1.0 && PyErr_Occurred()) goto done;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(columns, j), &views[j],
                               PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
        held++;
        if (views[j].itemsize != sizeof(double)) {
            PyErr_SetString(PyExc_TypeError, "scan: columns must be float64");
            goto done;
        }
        col[j] = (const double *)views[j].buf;
    }
    Py_ssize_t n = views[0].len / (Py_ssize_t)sizeof(double);
    const signed char *y = (const signed char *)labels.buf;
    const Py_ssize_t *rows = (const Py_ssize_t *)order.buf;
    double *result = (double *)out.buf;
    Py_ssize_t order_length = order.len / (Py_ssize_t)sizeof(Py_ssize_t);
    if (labels.len < n || start < 0 || stop < start || stop > n ||
        (!cyclic && stop > order_length) ||
        out.len / (Py_ssize_t)sizeof(double) < stop - start) {
        PyErr_SetString(PyExc_ValueError, "scan: buffers too short for start..stop");
        goto done;
    }
    Py_ssize_t k = start;
    for (; k < stop; k++) {
        Py_ssize_t i = cyclic ? k : rows[k];
        if (i < 0 || i >= n) {
            PyErr_SetString(PyExc_IndexError, "scan: row out of range");
            goto done;
        }
        double v = col[0][i] * w[0];
        for (Py_ssize_t j = 1; j < d; j++) v += col[j][i] * w[j];
        if (theta != 0.0) v -= theta * (double)y[i];
        result[k - start] = v;
        if (!(v > 0.0)) {
            k++;
            break;
        }
    }
    scored = k - start;
done:
    for (Py_ssize_t j = 0; j < held; j++) PyBuffer_Release(&views[j]);
    PyBuffer_Release(&labels);
    PyBuffer_Release(&order);
    PyBuffer_Release(&out);
    return scored < 0 ? NULL : PyLong_FromSsize_t(scored);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "Score trials until the first mistake (see _scan.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
