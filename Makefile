# gpulab build. C (gcc, C11) for the driver, nvcc for the GPU plugin.
# Everything built lands in build/ (git-ignored): copy that folder to a GPU
# machine with the same CUDA major version and run it there as is.

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
CXX       ?= g++
# Turing (7.5) to Hopper (9.0) as machine code, plus PTX for newer GPUs.
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 \
             -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
B         := build
DB        ?= db/results.db
CONFIG    ?= $(filter-out configs/smoke.conf,$(wildcard configs/*.conf))
CUPTI_INC := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include) $(CUDA_HOME)/include)
CUPTI_LIB := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64) $(CUDA_HOME)/lib64)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fopenmp -fPIC -Isrc -Iexperiments -Icupti
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -Werror -fPIC -Isrc -Icupti -I$(CUDA_HOME)/include -I$(CUPTI_INC)
NVFLAGS  ?= -O3 -lineinfo
NVFLAGS  += -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-Wall -Isrc -Iexperiments -Icupti -I$(CUPTI_INC)
LDLIBS   := -lsqlite3 -ldl -lm -fopenmp

# Driver: every C file under src/ and experiments/, and the pure-C files of cupti/
# (metric sets and names). cupti/gpu_*.c and cupti/*.cpp need CUDA headers and go
# into the plugin only.
DRIVER_SRC := $(wildcard src/*.c) $(wildcard experiments/*.c) \
              $(filter-out cupti/gpu_%.c,$(wildcard cupti/*.c))
DRIVER_OBJ := $(DRIVER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/db_sql.o $(B)/obj/gen/version.o
LIB_OBJ    := $(filter-out $(B)/obj/src/main.o,$(DRIVER_OBJ))

# GPU plugin: kernels + harness (.cu), CUPTI engine, and the C pieces it shares
# with the driver (parameters, statistics, float64 references).
PLUGIN_CU  := $(wildcard experiments/*.cu)
PLUGIN_C   := $(wildcard cupti/gpu_*.c)
PLUGIN_CPP := $(wildcard cupti/*.cpp)
PLUGIN_SHARED := $(B)/obj/src/params.o $(B)/obj/src/stats.o $(B)/obj/experiments/reference.o \
                 $(B)/obj/cupti/metric_sets.o
PLUGIN_OBJ := $(PLUGIN_CU:%.cu=$(B)/obj/%.o) $(PLUGIN_C:%.c=$(B)/obj/gpu/%.o) \
              $(PLUGIN_CPP:%.cpp=$(B)/obj/%.o)
PLUGIN     := $(B)/libgpulab_gpu.so

TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BIN := $(GPU_TEST_SRC:tests/gpu/%.c=$(B)/tests/gpu/%)

.PHONY: all driver plugin deps experiments smoke report test test-gpu bench clean
.DELETE_ON_ERROR:

all: deps-check $(B)/gpulab plugin $(GPU_TEST_BIN)

driver: $(B)/gpulab
plugin: $(PLUGIN)

$(B)/gpulab: $(DRIVER_OBJ)
	$(CC) -o $@ $^ $(LDLIBS)
	ln -sf $(B)/gpulab gpulab

$(B)/obj/%.o: %.c $(wildcard src/*.h experiments/*.h cupti/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/obj/gpu/%.o: %.c $(wildcard src/*.h cupti/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(CUDA_HOME)/include -I$(CUPTI_INC) -c -o $@ $<

$(B)/obj/%.o: %.cpp $(wildcard src/*.h cupti/*.h)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

$(B)/obj/%.o: %.cu $(wildcard src/*.h experiments/*.h experiments/*.cuh cupti/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $<

# No -lcuda: the CUDA runtime finds the driver itself, so the plugin loads (and
# reports "no CUDA driver") on machines without one.
$(PLUGIN): $(PLUGIN_OBJ) $(PLUGIN_SHARED)
	$(NVCC) $(CUDA_ARCH) -shared -o $@ $^ -cudart static -L$(CUDA_HOME)/lib64 -L$(CUPTI_LIB) \
	  -lcublas -lcupti -Xlinker -rpath,'$$ORIGIN',-rpath,$(CUDA_HOME)/lib64,-rpath,$(CUPTI_LIB) \
	  -Xcompiler -fopenmp

$(B)/tests/%: tests/%.c tests/t.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(LIB_OBJ) $(LDLIBS)

# GPU tests are built here with the rest and run on the GPU machine (make test-gpu).
$(B)/tests/gpu/%: tests/gpu/%.c tests/t.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(LIB_OBJ) $(LDLIBS)

# Debian packages the build, the report and the tests need.
DEPS_PKGS := libsqlite3-dev sqlite3 gnuplot-nox
deps:
	@sh tests/deps.sh $(DEPS_PKGS)
deps-check:
	@sh tests/deps.sh --check $(DEPS_PKGS)

experiments: deps all
	./$(B)/gpulab run $(CONFIG) --db $(DB)

smoke: deps all
	./$(B)/gpulab run configs/smoke.conf --db $(DB)

test: deps all $(TEST_BIN)
	@sh tests/run.sh

# Runs on the GPU machine against an already built tree (no compiler packages there).
test-gpu:
	@sh tests/gpu/run.sh

bench: all
	@sh bench/run.sh

clean:
	rm -rf $(B) gpulab

# The SQL in db/ is compiled into the binary (one source of truth, no files to find at run time).
DB_SQL := db/schema.sql db/views.sql $(sort $(wildcard db/migrations/*.sql))
$(B)/gen/db_sql.c: db/embed.sh $(DB_SQL)
	@mkdir -p $(dir $@)
	sh db/embed.sh $@
# The revision the binary was built from, rewritten only when it changes.
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(B)/gen/version.c: FORCE
	@mkdir -p $(dir $@)
	@echo 'const char gl_build_revision[] = "$(GIT_REV)";' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/obj/gen/version.o: $(B)/gen/version.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
.PHONY: FORCE
FORCE:
$(B)/obj/gen/db_sql.o: $(B)/gen/db_sql.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The report's rules (figures, tables, report.md) live with the report.
include report/report.mk
