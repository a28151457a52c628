/*
 * The arithmetic shared by the compiled loops (_scan.c, _learn.c): dot products summed left
 * to right (the bits of learners.exact.numpy_dot_rows), Dot2 in twice the precision, and
 * the refined bound of learners.exact.refine_coefficients. Compile without floating-point
 * contraction (-ffp-contract=off): a fused multiply-add would round once and give other bits.
 */
#ifndef SIMULATOR_KERNELS_H
#define SIMULATOR_KERNELS_H
#include <math.h>
#include <stddef.h>

/* s = x·w summed left to right; four rows at a time overlap their four (independent)
 * chains of additions, each still in its own left-to-right order: the same bits. */
static double dot1(const double *x, const double *w, ptrdiff_t d) {
    double s = x[0] * w[0];
    for (ptrdiff_t j = 1; j < d; j++) s += x[j] * w[j];
    return s;
}

static inline void dot4(const double *x0, const double *x1, const double *x2, const double *x3,
                 const double *w, ptrdiff_t d, double *s) {
    double s0 = x0[0] * w[0], s1 = x1[0] * w[0], s2 = x2[0] * w[0], s3 = x3[0] * w[0];
    for (ptrdiff_t j = 1; j < d; j++) {
        s0 += x0[j] * w[j];
        s1 += x1[j] * w[j];
        s2 += x2[j] * w[j];
        s3 += x3[j] * w[j];
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

/* The refinement of a score within its rounding-error bound, as rules.py does it in NumPy
 * (dot2_rows, refine_bounds, written_exactly): the same operations in the same order. */
#define SPLIT 134217729.0 /* 2^27 + 1 */

static void two_product(double a, double b, double *p, double *e) {
    double q = a * b;
    double c = SPLIT * a;
    double a_high = c - (c - a);
    double a_low = a - a_high;
    double c2 = SPLIT * b;
    double b_high = c2 - (c2 - b);
    double b_low = b - b_high;
    *p = q;
    *e = a_low * b_low - (((q - a_high * b_high) - a_low * b_high) - a_high * b_low);
}

static void two_sum(double a, double b, double *s, double *e) {
    double t = a + b;
    double z = t - a;
    *s = t;
    *e = (a - (t - z)) + (b - z);
}

static double dot2(const double *x, const double *w, ptrdiff_t d, double theta) {
    double p, s, h, r, q;
    two_product(x[0], w[0], &p, &s);
    for (ptrdiff_t j = 1; j < d; j++) {
        two_product(x[j], w[j], &h, &r);
        two_sum(p, h, &p, &q);
        s = s + (q + r);
    }
    if (theta != 0.0) {
        two_sum(p, -theta, &p, &q);
        s = s + q;
    }
    return p + s;
}

static int written_exactly(double v) {
    double t = v * 16.0;
    return t == floor(t) &&
           (fabs(v) < 68719476736.0 /* 2^36 */ ||
            (v == floor(v) && fabs(v) <= 9007199254740992.0 /* 2^53 */));
}

#define U 1.1102230246251565e-16 /* 2^-53 */

/* B of rules.refine_coefficients and refine_bounds, its coefficients r computed here from
 * w and their error bounds e, only for the rows that need them. */
static double refine_bound(const double *x, const double *w, const double *e, ptrdiff_t d,
                           double theta_r) {
    double gamma = (double)(d + 1) * U / (1.0 - (double)(d + 1) * U);
    double square = gamma * gamma;
    double inflation = 1.0 + 4.0 * (double)(d + 2) * U;
    double loose = U * (1.0 + 2.0 * U) * inflation;
    double b = 0.0;
    for (ptrdiff_t j = 0; j < d; j++) {
        double size = fabs(w[j]);
        double c = (e[j] * (1.0 + 3.0 * U) + size * square) * inflation;
        if (!written_exactly(x[j])) c = c + size * loose;
        b = j ? b + fabs(x[j]) * c : fabs(x[j]) * c;
    }
    return b + theta_r;
}

/* v decided again for a score within its cheap bound: y·s2 - offset, or NaN where even
 * that cannot tell (the caller then asks the exact shadow). Kept out of line: it is rare,
 * and the scan loop stays small. */
static __attribute__((noinline)) double refined(const double *x, const double *w,
                                                const double *e, ptrdiff_t d, double theta,
                                                double theta_r, signed char y, double offset) {
    double s2 = dot2(x, w, d, theta);
    double v = (y > 0 ? s2 : -s2) - offset;
    if (fabs(v) <= refine_bound(x, w, e, d, theta_r)) return NAN;
    return v;
}


/* Which of a trial's verdicts is a mistake: v < 0, NaN, or a tie (v == 0) that the tie rule
 * gets wrong (tie 0 "mistake": always; 1 "positive": y = -1; 2 "negative": y = +1). */
static int is_mistake(double v, signed char y, int tie) {
    return v < 0.0 || v != v || (v == 0.0 && (tie == 0 || (tie == 1 ? y < 0 : y > 0)));
}

#endif
