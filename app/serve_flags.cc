#include "app/serve_flags.h"

#include <CLI/CLI.hpp>
#include <iterator>
#include <string>

#include "cli/commands/usage.h"
#include "front/core_split.h"
#include "front/model_catalog.h"
#include "front/model_path.h"
#include "pipeline/translate_options.h"

namespace app {

namespace {

// "general-en-de and general-de-en": the bundled models serve offers without -m.
std::string routed_bundled_names() {
  std::string names;
  const size_t n = std::size(front::kRoutedBundledModels);
  for (size_t i = 0; i < n; ++i) {
    names += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + std::string(front::kRoutedBundledModels[i]);
  }
  return names;
}

}  // namespace

CLI::App* add_serve_command(CLI::App& app, serve::ServeOptions& o) {
  CLI::App* cmd = app.add_subcommand("serve", "Serve translations over HTTP with LibreTranslate's API");
  cmd->footer(
      "Examples:\n"
      "  nmt serve                  # every installed model, and the pairs they reach through English\n"
      "  nmt serve -m opus-mt-en-de -m opus-mt-de-en --port 5000 --threads 4\n"
      "  curl -s 127.0.0.1:5000/translate -d q='A dog runs.' -d source=en -d target=de\n"
      "Open http://127.0.0.1:5000/ in a browser to try it. See docs/serve.md for the API and the limits.");
  cmd->add_option("-m,--model", o.model_dirs,
                  "Model directory, once per model; each serves its language pair (default: $" +
                      std::string(front::kModelEnv) +
                      ", else every installed model (`nmt models list`) "
                      "and the bundled " +
                      routed_bundled_names() + " models when there)")
      ->type_name("DIR")
      ->envname(front::kModelEnv)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--pivot", o.pivot,
                  "Without -m: serve each pair no model translates through this language, by a model "
                  "into it and one out of it")
      ->capture_default_str()
      ->type_name("LANG");
  cmd->add_flag("--no-pivot", o.no_pivot, "Without -m: serve the models' own pairs only");
  cmd->get_option("--no-pivot")->excludes(cmd->get_option("--pivot"));
  cmd->add_option("--max-models-memory", o.max_models_memory,
                  "Without -m: bytes of installed models kept loaded (e.g. 2G); past it the least recently "
                  "used model no request holds is unloaded")
      ->capture_default_str()
      ->transform(CLI::AsSizeValue(false))
      ->type_name("SIZE");
  cmd->add_option("--host", o.host, "Address to listen on; 0.0.0.0 opens it to the network")
      ->capture_default_str();
  cli::int_in_range(cmd->add_option("--port", o.port, "Port; 0 picks a free one")->capture_default_str(), 0,
                    65535);
  cli::int_in_range(cmd->add_option("--threads", o.threads,
                                    "CPU threads of each replica, 0 = the cores shared among the replicas")
                        ->capture_default_str(),
                    0, 256);
  cli::int_in_range(
      cmd->add_option("--replicas", o.replicas,
                      "Translators sharing one copy of the weights, each with --threads threads; "
                      "0 = one per " +
                          (front::kServeCoresPerReplica == 1
                               ? std::string("core")
                               : std::to_string(front::kServeCoresPerReplica) + " cores") +
                          " (docs/speed.md)")
          ->capture_default_str(),
      0, pipeline::kMaxReplicas);
  cli::int_in_range(cmd->add_option("--max-connections", o.max_connections,
                                    "Connections served at once; more wait for a free one")
                        ->capture_default_str(),
                    1, 4096);
  cli::int_in_range(
      cmd->add_option("--max-body", o.max_body_bytes, "Largest request body in bytes (413 beyond)")
          ->capture_default_str(),
      1024, 1L << 30);
  cli::int_in_range(
      cmd->add_option("--max-chars", o.max_chars, "Most characters of text in one request (400 beyond)")
          ->capture_default_str(),
      1, 1L << 30);
  cli::int_in_range(
      cmd->add_option("--max-items", o.max_items, "Most texts in one request's q array (400 beyond)")
          ->capture_default_str(),
      1, 1 << 20);
  cli::int_in_range(cmd->add_option("--max-queue", o.max_queued_requests,
                                    "Requests waiting for the translator at once (429 beyond)")
                        ->capture_default_str(),
                    1, 1 << 20);
  cli::int_in_range(cmd->add_option("--request-timeout", o.request_timeout_s,
                                    "Seconds a request may wait for its translation (503 beyond)")
                        ->capture_default_str(),
                    1, 3600);
  cli::int_in_range(cmd->add_option("--read-timeout", o.read_timeout_s,
                                    "Seconds a client may stay silent while sending (slow clients are cut)")
                        ->capture_default_str(),
                    1, 600);
  cli::int_in_range(
      cmd->add_option("--receive-timeout", o.receive_timeout_s,
                      "Seconds a client may take to send one whole request (drip-feeders are cut)")
          ->capture_default_str(),
      1, 3600);
  cli::int_in_range(cmd->add_option("--batch-wait", o.batch_wait_ms,
                                    "Milliseconds a request waits for others to share its batch")
                        ->capture_default_str(),
                    0, 1000);
  cli::int_in_range(cmd->add_option("--max-batch-tokens", o.max_batch_tokens,
                                    "Estimated source tokens of the requests batched together")
                        ->capture_default_str(),
                    1, 1 << 20);
  cmd->add_option("--api-keys", o.api_keys_file,
                  "File of API keys, one a line: requests must give one (api_key)")
      ->type_name("FILE");
  cmd->add_option("--cors-origin", o.cors_origin,
                  "Origin whose pages may call the server ('*': any; '': none)")
      ->type_name("ORIGIN")
      ->capture_default_str();
  cmd->add_option(
         "--glossary", o.glossary,
         "Terms every translation must use (a SOURCE<TAB>TARGET file, docs/glossary.md); a request's "
         "glossary field adds its own")
      ->type_name("FILE");
  return cmd;
}

}  // namespace app
