#include "model/cholesky.h"

#include <cmath>

#include "spdlog/fmt/fmt.h"

namespace qcesim::model {

Matrix cholesky(const Matrix& a) {
  const std::size_t n = a.size();
  for (const auto& row : a)
    if (row.size() != n) return {};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (!(std::fabs(a[i][j] - a[j][i]) <= 1e-9)) return {};
  Matrix l(n, std::vector<double>(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
    if (!(d > 1e-9)) return {};
    l[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = s / l[j][j];
    }
  }
  return l;
}

Matrix principal_submatrix(const Matrix& a, const std::vector<std::size_t>& keep) {
  Matrix s(keep.size(), std::vector<double>(keep.size()));
  for (std::size_t i = 0; i < keep.size(); ++i)
    for (std::size_t j = 0; j < keep.size(); ++j) s[i][j] = a[keep[i]][keep[j]];
  return s;
}

std::string correlation_markdown(const std::vector<std::string>& names, const Matrix& m) {
  std::string s = "|   |";
  for (const std::string& n : names) s += " `" + n + "` |";
  s += "\n|---|";
  for (std::size_t i = 0; i < names.size(); ++i) s += "---|";
  s += "\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    s += "| `" + names[i] + "` |";
    for (double x : m[i]) s += fmt::format(" {:+.2f} |", x);
    s += "\n";
  }
  return s;
}

}  // namespace qcesim::model
