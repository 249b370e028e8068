#include "serve/serve_command.h"

#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <memory>
#include <thread>

#include "core/error.h"
#include "core/threads.h"
#include "front/core_split.h"
#include "front/model_catalog.h"
#include "pipeline/translate_options.h"
#include "serve/http_server.h"

namespace serve {

int run_serve(const ServeOptions& options) {
  ServeOptions o = options;
  if (!o.glossary.empty())
    o.glossary_terms = std::make_shared<pipeline::Glossary>(pipeline::Glossary::read(o.glossary));
  const ApiKeys keys = o.api_keys_file.empty() ? ApiKeys() : ApiKeys::load(o.api_keys_file);
  // The signals wait for the signal thread: every thread started from here on inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_signals, sig);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const front::CoreSplit split = front::split_cores(o.replicas, o.threads, static_cast<int>(cores));
  o.replicas = split.replicas;
  core::set_num_threads(split.threads);
  const std::unique_ptr<const ModelSet> model_set =
      o.model_dirs.empty() ? std::make_unique<const ModelSet>(front::ModelCatalog::load(),
                                                              o.no_pivot ? "" : o.pivot, o.max_models_memory)
                           : std::make_unique<const ModelSet>(o.model_dirs);
  const ModelSet& models = *model_set;
  if (models.pairs().empty()) {
    throw core::UsageError(
        "no model to serve: install one (nmt models install Helsinki-NLP/opus-mt-en-de) "
        "or give -m DIR");
  }
  TranslationService service(models, o);
  HttpServer server(service, o, keys);
  const int port = server.bind();
  std::string pairs;
  for (const LanguagePair& p : models.pairs()) pairs += " " + p.source + "-" + p.target;
  std::cerr << "nmt serve: listening on http://" << o.host << ":" << port << "/ (pairs:" << pairs << ")"
            << std::endl;
  std::thread([&server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::cerr << "nmt serve: "
              << (sig == SIGINT    ? "SIGINT"
                  : sig == SIGTERM ? "SIGTERM"
                                   : "SIGHUP")
              << ": answering the requests in flight, then exiting" << std::endl;
    server.stop();
  }).detach();
  server.run();
  return 0;
}

}  // namespace serve
