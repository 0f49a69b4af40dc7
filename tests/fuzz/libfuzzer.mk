# The fuzz targets built with clang's libFuzzer (tests/fuzz/README).
# Automake cannot build one set of sources with a second compiler, so the
# top Makefile runs this one with:
#   srcdir, FUZZ_CC, FUZZ_CPPFLAGS (includes and defines of the library),
#   FUZZ_SOURCES (the library's and the generator's .c and .cpp files), FUZZ_LIBS.
# Objects go under tests/fuzz/libfuzzer/, one per source, rebuilt when the
# source or a header it includes changes (-MMD).
OUT = tests/fuzz/libfuzzer
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -std=gnu11 -w
TARGETS = $(OUT)/fuzz-trace $(OUT)/fuzz-hypotheses $(OUT)/fuzz-platform
# The SimGrid adapter (sim/engine-s4u.cpp) is C++: the same clang, in C++.
# The targets link in C++ mode (--driver-mode=g++), for its sanitizer runtime.
FUZZ_CXXFLAGS = $(filter-out -std=gnu11,$(FUZZ_CFLAGS)) -x c++ -std=c++17
COMMON_OBJS = $(patsubst %.cpp,$(OUT)/%.o,$(patsubst %.c,$(OUT)/%.o,$(FUZZ_SOURCES) tests/fuzz/fuzz-common.c))

all: $(TARGETS)

$(OUT)/%.o: $(srcdir)/%.c
	@mkdir -p $(@D)
	@echo "  FUZZCC   $@"
	@$(FUZZ_CC) $(FUZZ_CPPFLAGS) -DTS_FUZZ_SRCDIR='"$(abspath $(srcdir))/tests/fuzz"' \
		$(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/%.o: $(srcdir)/%.cpp
	@mkdir -p $(@D)
	@echo "  FUZZCXX  $@"
	@$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CXXFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/fuzz-%: $(OUT)/tests/fuzz/fuzz-%.o $(COMMON_OBJS)
	@echo "  FUZZLD   $@"
	@$(FUZZ_CC) --driver-mode=g++ -fsanitize=fuzzer,address,undefined -o $@ $^ $(FUZZ_LIBS)

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
.PHONY: all
# The objects are kept for the next build (they are intermediate to make).
.SECONDARY:
