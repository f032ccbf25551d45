// Options structs <-> Python dicts, driven by each solver's SVMKIT_*_OPTIONS field list.
#pragma once

#include <pybind11/pybind11.h>

#include <set>
#include <string>

#include "svmkit/options.hpp"
#include "svmkit/status.hpp"

namespace svmkit::py_bind {
namespace py = pybind11;

#define SVMKIT_OPTION_TO_DICT(field) d[#field] = opt.field;
#define SVMKIT_OPTION_FROM_DICT(field)                                          \
  if (src.contains(#field)) {                                                   \
    try {                                                                       \
      opt.field = src[#field].cast<decltype(opt.field)>();                      \
    } catch (const py::cast_error&) {                                           \
      throw_invalid(std::string("option '") + #field + "' has the wrong type"); \
    }                                                                           \
  }                                                                             \
  known.insert(#field);

// Defines, for a field list of option records (svmkit/options.hpp),
// `py::dict NAME_to_dict(const Options&)`, `Options NAME_from_dict(const py::dict&)` (unknown
// names and wrong types raise ValueError) and `py::list NAME_records_to_list()`: one dict per
// option (name, type, default, low, high, doc) for `svmkit.option_table()` and the docs, and
// `register_NAME_option_table()`, which enters the table in the one registry behind
// `_core.option_defaults(name)` and `_core.option_records(name)` (bind_option_tables).
#define SVMKIT_OPTION_RECORD_TO_DICT(type, field, def, low, high, doc) SVMKIT_OPTION_TO_DICT(field)
#define SVMKIT_OPTION_RECORD_FROM_DICT(type, field, def, low, high, doc) \
  SVMKIT_OPTION_FROM_DICT(field)

py::list option_records_to_list(const std::vector<OptionRecord>& records);

// The registry of option tables: each solver's binding registers its table once at import;
// option_defaults(name) / option_records(name) / option_table_names() read it.
void register_option_table(const std::string& name, py::dict (*defaults)(), py::list (*records)());
void bind_option_tables(py::module_& m);

#define SVMKIT_DEFINE_OPTION_TABLE(Options, NAME, FIELDS)                             \
  inline py::dict NAME##_to_dict(const Options& opt) {                                \
    py::dict d;                                                                       \
    FIELDS(SVMKIT_OPTION_RECORD_TO_DICT)                                              \
    return d;                                                                         \
  }                                                                                   \
  inline Options NAME##_from_dict(const py::dict& src) {                              \
    Options opt;                                                                      \
    std::set<std::string> known;                                                      \
    FIELDS(SVMKIT_OPTION_RECORD_FROM_DICT)                                            \
    for (auto item : src) {                                                           \
      const auto key = item.first.cast<std::string>();                                \
      if (!known.count(key)) throw_invalid("unknown " #NAME " option '" + key + "'"); \
    }                                                                                 \
    return opt;                                                                       \
  }                                                                                   \
  inline py::list NAME##_records_to_list() {                                          \
    return option_records_to_list(NAME##_option_records());                           \
  }                                                                                   \
  inline void register_##NAME##_option_table() {                                      \
    register_option_table(                                                            \
        #NAME, [] { return NAME##_to_dict(Options{}); }, &NAME##_records_to_list);    \
  }

}  // namespace svmkit::py_bind
