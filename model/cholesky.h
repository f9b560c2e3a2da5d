// Correlation matrices: the lower Cholesky factor L of a symmetric positive definite matrix A
// (A = L L^T), what turns independent standard normals z into draws with A's correlations
// (x = L z) and the test that a correlation matrix written in a profile is one a distribution
// can have; the correlations among some of a group's members; and the matrix as a Markdown table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qcesim::model {

using Matrix = std::vector<std::vector<double>>;

// L, or an empty matrix when A is not square, not symmetric (to 1e-9) or not positive definite
// (a pivot at or below 1e-9: a parameter that is a fixed combination of the others).
Matrix cholesky(const Matrix& a);

// The rows and columns `keep` of A, in that order (the correlations among those members: still
// positive definite when A is).
Matrix principal_submatrix(const Matrix& a, const std::vector<std::size_t>& keep);

// A Markdown table of a correlation matrix, `names` heading its rows and columns, each value to
// two decimals with its sign.
std::string correlation_markdown(const std::vector<std::string>& names, const Matrix& m);

}  // namespace qcesim::model
