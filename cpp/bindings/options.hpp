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
// `bind_NAME_option_table(m)`, which binds the last two as NAME_defaults and NAME_option_records.
#define SVMKIT_OPTION_RECORD_TO_DICT(type, field, def, low, high, doc) SVMKIT_OPTION_TO_DICT(field)
#define SVMKIT_OPTION_RECORD_FROM_DICT(type, field, def, low, high, doc) \
  SVMKIT_OPTION_FROM_DICT(field)

py::list option_records_to_list(const std::vector<OptionRecord>& records);

#define SVMKIT_DEFINE_OPTION_TABLE(Options, NAME, FIELDS)                                \
  inline py::dict NAME##_to_dict(const Options& opt) {                                   \
    py::dict d;                                                                          \
    FIELDS(SVMKIT_OPTION_RECORD_TO_DICT)                                                 \
    return d;                                                                            \
  }                                                                                      \
  inline Options NAME##_from_dict(const py::dict& src) {                                 \
    Options opt;                                                                         \
    std::set<std::string> known;                                                         \
    FIELDS(SVMKIT_OPTION_RECORD_FROM_DICT)                                               \
    for (auto item : src) {                                                              \
      const auto key = item.first.cast<std::string>();                                   \
      if (!known.count(key)) throw_invalid("unknown " #NAME " option '" + key + "'");    \
    }                                                                                    \
    return opt;                                                                          \
  }                                                                                      \
  inline py::list NAME##_records_to_list() {                                             \
    return option_records_to_list(NAME##_option_records());                              \
  }                                                                                      \
  inline void bind_##NAME##_option_table(py::module_& m) {                               \
    m.def(                                                                               \
        #NAME "_defaults", [] { return NAME##_to_dict(Options{}); },                     \
        "Default " #NAME " options (the single source of the defaults).");               \
    m.def(#NAME "_option_records", &NAME##_records_to_list,                              \
          #NAME "'s option records: name, type, default, valid range and doc of each."); \
  }

}  // namespace svmkit::py_bind
