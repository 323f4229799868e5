// make_engine: picks the engine by name; engines missing from this build (no CUDA, no Gloo) are an Error.
#include "comm/engine/engine.h"

namespace dd::comm {

#ifdef DD_HAVE_CUDA
std::unique_ptr<Engine> make_nccl_engine();
#endif
#ifdef DD_HAVE_GLOO
std::unique_ptr<Engine> make_gloo_engine();
#endif

bool nccl_engine_built() {
#ifdef DD_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

bool gloo_engine_built() {
#ifdef DD_HAVE_GLOO
  return true;
#else
  return false;
#endif
}

std::string gloo_missing_reason() {
  if (gloo_engine_built()) return "";
  return "this distdoctor was built without Gloo (the CPU engine: a portable build has it only when made "
         "with DD_GLOO_SRC)";
}

Result<std::unique_ptr<Engine>> make_engine(rules::EngineKind kind) {
  if (kind == rules::EngineKind::nccl) {
#ifdef DD_HAVE_CUDA
    return make_nccl_engine();
#else
    return Error{"this distdoctor was built without CUDA: the NCCL engine is not available"};
#endif
  }
#ifdef DD_HAVE_GLOO
  return make_gloo_engine();
#else
  return Error{"this distdoctor was built without Gloo: the Gloo engine is not available"};
#endif
}

}  // namespace dd::comm
