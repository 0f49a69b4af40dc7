# The fuzz targets built with clang's libFuzzer (tests/fuzz/README).
# Automake cannot build one set of sources with a second compiler, so the
# top Makefile runs this one with:
#   srcdir, FUZZ_CC, FUZZ_CPPFLAGS (includes and defines of the library),
#   FUZZ_SOURCES (the library's and the generator's .c and .cpp files),
#   FUZZ_LIBS (with the C++ runtime, for sim/engine-s4u.cpp).
# Objects go under tests/fuzz/libfuzzer/, one per source, rebuilt when the
# source or a header it includes changes (-MMD).
OUT = tests/fuzz/libfuzzer
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -std=gnu11 -w
TARGETS = $(OUT)/fuzz-trace $(OUT)/fuzz-hypotheses $(OUT)/fuzz-platform
# C++ without UBSan's vptr and function checks, whose runtime only
# clang++ links.
FUZZ_CXXFLAGS = $(filter-out -std=%,$(FUZZ_CFLAGS)) -std=c++17 -fno-sanitize=vptr,function
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
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(FUZZ_LIBS)

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
.PHONY: all
# The objects are kept for the next build (they are intermediate to make).
.SECONDARY:
