#pragma once
// A sparse square matrix in compressed sparse rows, as three rank-1 Views: the entries of row
// i are columns(row_starts(i)) .. columns(row_starts(i + 1) - 1), with values at the same
// positions. row_starts has n + 1 entries, starts at 0 and does not decrease; columns are in
// [0, n). The Views may be of any integer (row_starts, columns) and float or double (values)
// types, in memory the execution space reaches.
namespace kernwerk {

template <class RowStarts, class Columns, class Values>
struct csr_matrix {
  RowStarts row_starts;
  Columns columns;
  Values values;
};

template <class RowStarts, class Columns, class Values>
csr_matrix<RowStarts, Columns, Values> make_csr(const RowStarts& row_starts,
                                                const Columns& columns, const Values& values) {
  return {row_starts, columns, values};
}

}  // namespace kernwerk
