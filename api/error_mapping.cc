#include "api/error_mapping.h"

#include "core/error.h"
#include "models/model_error.h"
#include "pipeline/translate_options.h"

namespace nmt {

Error::Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kModel:
      return "model";
    case ErrorCode::kInvalidArgument:
      return "invalid-argument";
    default:
      return "failure";
  }
}

}  // namespace nmt

namespace api {

std::string option_name(const std::string& field) {
  if (field == "sampling.seed") return "seed";
  std::string name = field;
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

void rethrow_as_error() {
  try {
    throw;
  } catch (const nmt::Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const pipeline::OptionError& e) {
    throw nmt::Error(nmt::ErrorCode::kInvalidArgument, option_name(e.option()) + " " + e.rule());
  } catch (const core::UsageError& e) {
    throw nmt::Error(nmt::ErrorCode::kInvalidArgument, e.what());
  } catch (const models::ModelError& e) {
    throw nmt::Error(nmt::ErrorCode::kModel, e.what());
  } catch (const std::exception& e) {
    throw nmt::Error(nmt::ErrorCode::kFailure, e.what());
  } catch (...) {
    throw nmt::Error(nmt::ErrorCode::kFailure, "unknown error");
  }
}

}  // namespace api
