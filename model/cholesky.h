// The lower Cholesky factor L of a symmetric positive definite matrix A (A = L L^T): what turns
// independent standard normals z into draws with A's correlations (x = L z), and the test that a
// correlation matrix written in a profile is one a distribution can have.
#pragma once

#include <vector>

namespace qcesim::model {

using Matrix = std::vector<std::vector<double>>;

// L, or an empty matrix when A is not square, not symmetric (to 1e-9) or not positive definite
// (a pivot at or below 1e-9: a parameter that is a fixed combination of the others).
Matrix cholesky(const Matrix& a);

}  // namespace qcesim::model
