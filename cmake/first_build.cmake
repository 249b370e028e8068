# What makes a first build (`make`, no compiler cache) cheap in CPU time, included from the top CMakeLists.txt
# once the libraries and the program are declared. core/ (the kernels) is left out of all of it: its files
# compile one by one, with the build type's flags.

# Unity builds: the libraries above core/ compile their files in batches, so that the heavy headers
# (nlohmann/json, CLI11, ICU, cpp-httplib) are parsed and their templates compiled once a batch, not once a
# file. OFF suits editing, where a change then recompiles its file alone.
option(NMT_UNITY_BUILD "Compile the libraries above core/ in batches (a faster first build)" ON)
if(NMT_UNITY_BUILD)
  set_target_properties(nmt_tokenizer nmt_models nmt_pipeline nmt_convert nmt_hub nmt_documents nmt_front nmt_cli
                        nmt_serve PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
endif()

# Cold code at -O1: parsing a command line, a request or a model file and formatting a line of output are
# small beside a translation, and -O1 compiles this template-heavy code (CLI11, nlohmann/json, cpp-httplib)
# in about half the time of -O3. The code a translation spends its time in (core/, tokenizer/, models/,
# pipeline/, documents/) keeps the build type's flags.
option(NMT_COLD_CODE_O1 "Compile app/, cli/, front/, serve/, models/convert/ and models/hub/ at -O1" ON)
if(NMT_COLD_CODE_O1)
  foreach(target nmt nmt_cli nmt_front nmt_serve nmt_convert nmt_hub)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
  endforeach()
endif()
