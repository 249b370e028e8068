# What makes a first build (`make`, no compiler cache) cheap in CPU time, included from the top CMakeLists.txt
# once the libraries and the program are declared. core/'s compute files (kernels, attention, GEMM, the
# per-ISA code) are left out of all of it: they compile one by one, with the build type's flags.

# Unity builds: the libraries compile their files in batches, so that the heavy headers
# (nlohmann/json, CLI11, ICU, cpp-httplib) are parsed and their templates compiled once a batch, not once a
# file. OFF suits editing, where a change then recompiles its file alone.
option(NMT_UNITY_BUILD "Compile the libraries in batches (a faster first build)" ON)
if(NMT_UNITY_BUILD)
  set_target_properties(nmt_core nmt_tokenizer nmt_models nmt_pipeline nmt_convert nmt_hub nmt_documents
                        nmt_front nmt_cli nmt_serve nmt PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  # core/'s batches hold its plumbing and search; the compute files keep their own translation units, so that
  # what the compiler inlines into a kernel does not depend on the batch it falls in.
  file(GLOB NMT_CORE_COMPUTE_SOURCES CONFIGURE_DEPENDS core/attend_*.cc core/*gemm*.cc core/*kernels*.cc
       core/half.cc core/int8_matrix.cc core/weight_packer.cc core/output_scan.cc core/finite_scan.cc
       core/sampling.cc core/thread_team.cc)
  set_source_files_properties(${NMT_CORE_COMPUTE_SOURCES} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  # cli/'s batches are its rooms: its CLI11 users (cli/commands/) share one batch, so that CLI11, whose
  # header alone costs a file seconds, compiles once for the library however many commands it gains.
  set_target_properties(nmt_cli PROPERTIES UNITY_BUILD_MODE GROUP)
  file(GLOB NMT_CLI_COMMAND_SOURCES CONFIGURE_DEPENDS cli/*.cc cli/commands/*.cc)
  set_source_files_properties(${NMT_CLI_COMMAND_SOURCES} PROPERTIES UNITY_GROUP cli_commands)
  foreach(room files io)
    file(GLOB NMT_CLI_ROOM_SOURCES CONFIGURE_DEPENDS cli/${room}/*.cc)
    set_source_files_properties(${NMT_CLI_ROOM_SOURCES} PROPERTIES UNITY_GROUP cli_${room})
  endforeach()
endif()

# Cold code at -Og: parsing a command line, a request, a model file or a document, splitting sentences and
# batching them, and formatting a line of output are small beside a translation, and -Og compiles this
# template-heavy code (CLI11, nlohmann/json, cpp-httplib, ICU) in about half the time of -O3 (and faster than
# -O1, which inlines more). The code a translation spends its time in (core/ and models/'s network) keeps the
# build type's flags; `make bench` times the whole translation either way.
option(NMT_COLD_CODE_OG "Compile the code outside core/ and the network at -Og" ON)
if(NMT_COLD_CODE_OG)
  foreach(target nmt nmt_cli nmt_front nmt_serve nmt_convert nmt_hub nmt_tokenizer nmt_pipeline nmt_documents)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-Og>)
  endforeach()
  # models/'s file readers (checkpoint, model.json, the model store, the shortlist builder) are cold code too:
  # an object library inside nmt_models gives them their own flags and batch.
  set(NMT_MODEL_FILE_SOURCES blob_crc32 blob_io checkpoint json_fields model_config model_store parameter_count
                             shortlist_builder)
  list(TRANSFORM NMT_MODEL_FILE_SOURCES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/models/")
  list(TRANSFORM NMT_MODEL_FILE_SOURCES APPEND ".cc")
  get_target_property(NMT_NETWORK_SOURCES nmt_models SOURCES)
  list(REMOVE_ITEM NMT_NETWORK_SOURCES ${NMT_MODEL_FILE_SOURCES})
  add_library(nmt_model_files OBJECT ${NMT_MODEL_FILE_SOURCES})
  get_target_property(NMT_MODELS_DEPENDENCIES nmt_models LINK_LIBRARIES)
  target_link_libraries(nmt_model_files PRIVATE ${NMT_MODELS_DEPENDENCIES})
  target_compile_options(nmt_model_files PRIVATE $<$<CONFIG:Release>:-Og>)
  set_target_properties(nmt_model_files PROPERTIES UNITY_BUILD ${NMT_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 16)
  set_target_properties(nmt_models PROPERTIES SOURCES "${NMT_NETWORK_SOURCES};$<TARGET_OBJECTS:nmt_model_files>")
endif()
