#pragma once
/// \file
/// Sparse matrices in compressed sparse rows, for kernwerk::conjugate_gradient.
namespace kernwerk {

/// A sparse square matrix in compressed sparse rows, as three rank-1 Views: the entries of row
/// i are columns(row_starts(i)) .. columns(row_starts(i + 1) - 1), with values at the same
/// positions. The Views may be of any integer (row_starts, columns) and float or double
/// (values) types, in memory the execution space reaches. Nothing is copied.
template <class RowStarts, class Columns, class Values>
struct csr_matrix {
  RowStarts row_starts;  ///< n + 1 entries: starts at 0, does not decrease
  Columns columns;       ///< row_starts(n) column indices, each in [0, n)
  Values values;         ///< row_starts(n) values, at the positions of their columns
};

/// A csr_matrix of the three Views, their types deduced.
template <class RowStarts, class Columns, class Values>
csr_matrix<RowStarts, Columns, Values> make_csr(const RowStarts& row_starts,
                                                const Columns& columns, const Values& values) {
  return {row_starts, columns, values};
}

}  // namespace kernwerk
