#pragma once
// Non-negative least squares on relative error, for fit_speed: find theta >= 0 minimising
// sum_i ((offset_i + sum_j theta_j x_ij) / y_i - 1)^2, every coefficient a multiplier or a time
// that cannot be negative (offset_i: the row's time from coefficients held at a floor, which
// fit_speed fits as their excess over it). Columns are scaled to unit norm, the normal equations
// solved by Gaussian elimination with partial pivoting, and a coefficient that comes out negative
// is pinned at 0 and the rest solved again (the active-set method, enough for a few dozen
// coefficients).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace canitrun::tools {

struct Row {
    std::vector<double> x;  // the time each coefficient contributes at 1.0
    double y = 0;           // the measured time
    double w = 1;           // the row's weight (iteratively reweighted: see fit_robust)
    bool prior = false;     // a prior's row (see fit_half): its weight stays as set
    double offset = 0;      // time the row takes whatever theta is (coefficients held at a floor)
};

// Solves A theta = b in place (A n x n, row-major); false when singular.
inline bool solve(std::vector<double>& a, std::vector<double>& b, std::size_t n) {
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < n; ++r) {
            if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
        }
        if (std::fabs(a[pivot * n + col]) < 1e-300) return false;
        for (std::size_t k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
        std::swap(b[col], b[pivot]);
        for (std::size_t r = 0; r < n; ++r) {
            if (r == col) continue;
            const double f = a[r * n + col] / a[col * n + col];
            for (std::size_t k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
            b[r] -= f * b[col];
        }
    }
    for (std::size_t i = 0; i < n; ++i) b[i] /= a[i * n + i];
    return true;
}

// `free[j]` false: theta_j is not fitted (no row uses it) and stays 0.
inline std::vector<double> fit_nonnegative(const std::vector<Row>& rows, std::vector<bool> free) {
    const std::size_t n = free.size();
    std::vector<double> scale(n, 0);
    for (const Row& r : rows) {
        for (std::size_t j = 0; j < n; ++j) scale[j] += r.w * (r.x[j] / r.y) * (r.x[j] / r.y);
    }
    for (std::size_t j = 0; j < n; ++j) {
        scale[j] = std::sqrt(scale[j]);
        if (scale[j] == 0) free[j] = false;
    }
    std::vector<double> theta(n, 0);
    for (std::size_t round = 0; round <= n; ++round) {
        std::vector<std::size_t> idx;
        for (std::size_t j = 0; j < n; ++j) {
            if (free[j]) idx.push_back(j);
        }
        const std::size_t m = idx.size();
        std::vector<double> a(m * m, 0), b(m, 0);
        for (const Row& r : rows) {
            for (std::size_t p = 0; p < m; ++p) {
                const double xp = r.x[idx[p]] / r.y / scale[idx[p]];
                b[p] += r.w * xp * (1 - r.offset / r.y);
                for (std::size_t q = 0; q < m; ++q)
                    a[p * m + q] += r.w * xp * r.x[idx[q]] / r.y / scale[idx[q]];
            }
        }
        for (std::size_t p = 0; p < m; ++p) a[p * m + p] += 1e-9;  // keeps it solvable
        if (!solve(a, b, m)) return theta;
        bool negative = false;
        std::fill(theta.begin(), theta.end(), 0.0);
        std::size_t worst = 0;
        double most = 0;
        for (std::size_t p = 0; p < m; ++p) {
            theta[idx[p]] = b[p] / scale[idx[p]];
            if (b[p] < most) {
                most = b[p];
                worst = idx[p];
                negative = true;
            }
        }
        if (!negative) return theta;
        free[worst] = false;
    }
    return theta;
}

// Least absolute relative error, by iteratively reweighted least squares: each round weighs a row
// by 1 / max(|its error|, 2 %), so a few rows no coefficient explains (a backend's slow path for
// one weight type) pull the fit less than under squares; the median error is what it lowers.
inline std::vector<double> fit_robust(std::vector<Row> rows, const std::vector<bool>& free) {
    std::vector<double> theta = fit_nonnegative(rows, free);
    for (int round = 0; round < 30; ++round) {
        for (Row& r : rows) {
            if (r.prior) continue;
            double t = r.offset;
            for (std::size_t j = 0; j < theta.size(); ++j) t += theta[j] * r.x[j];
            r.w = 1.0 / std::max(std::fabs(t / r.y - 1), 0.02);
        }
        theta = fit_nonnegative(rows, free);
    }
    return theta;
}

}  // namespace canitrun::tools
