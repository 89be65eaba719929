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
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fopenmp -fPIC
# The CPU baselines (experiments/cpu/) are compiled on top of CFLAGS with the
# loop vectoriser (-O3) and a*b+c fused into FMA where the instruction set has
# it; the matmul and vecadd loops are compiled for every x86-64 level (x86-64,
# -v3, -v4) and the level the CPU supports is picked at run time
# (experiments/cpu/cpu_dispatch.h).
CPU_KFLAGS ?= -O3 -ffp-contract=fast
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -Werror -fPIC -I$(CUDA_HOME)/include -I$(CUPTI_INC)
NVFLAGS  ?= -O3 -lineinfo
NVFLAGS  += -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-Wall -I$(CUPTI_INC)
LDLIBS   := -lsqlite3 -ldl -lm -fopenmp

# Folders by job. Each folder's README ends in a line "may call: FOLDER ..." (itself
# included): the folders whose headers it sees, so a folder can call only down, never
# up and never in a circle; that line is the one declaration of the rule (the build
# takes the include path from it, tests/integration/layout.sh checks it). What is
# linked where:
#   src/core/                       every binary (structs, parameters, metrics, plugin interface)
#   src/{host,registry,config,store,sweep,cli}/
#                                   the driver, build/gpulab (no variant in it: it loads plugins)
#   experiments/                    both built-in plugins (random inputs, float64 references)
#   experiments/cpu/                build/libgpulab_cpu.so, the CPU baselines
#   experiments/gpu/ (harness/, userkernel/), cupti/
#                                   build/libgpulab_gpu.so, the GPU kernels, their harness,
#                                   users' kernels and the CUPTI engine (needs the CUDA headers)
may_call = $(addprefix -I,$(shell sed -n 's/^may call: //p' $(1)/README))
# the headers of the folders a folder may call, for the prerequisites of its objects
may_see  = $(foreach d,$(shell sed -n 's/^may call: //p' $(1)/README),$(wildcard $(d)/*.h $(d)/*.cuh))
DRIVER_DIRS := src/host src/registry src/config src/store src/sweep src/cli
GPU_DIRS    := experiments/gpu experiments/gpu/harness experiments/gpu/userkernel
INC_CORE   := -Isrc/core
INC_DRIVER := $(INC_CORE) $(addprefix -I,$(DRIVER_DIRS))
INC_FAMILY := $(INC_CORE) -Iexperiments
INC_CPU    := $(INC_FAMILY) -Iexperiments/cpu
INC_CUPTI  := -I$(CUDA_HOME)/include -I$(CUPTI_INC)
INC_GPU    := $(INC_FAMILY) -Icupti $(addprefix -I,$(GPU_DIRS))

CORE_OBJ   := $(patsubst %.c,$(B)/obj/%.o,$(wildcard src/core/*.c))
DRIVER_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(wildcard $(addsuffix /*.c,$(DRIVER_DIRS)))) \
              $(B)/obj/gen/db_sql.o $(B)/obj/gen/version.o
FAMILY_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(wildcard experiments/*.c))
CPU_OBJ    := $(patsubst %.c,$(B)/obj/%.o,$(wildcard experiments/cpu/*.c))
GPU_OBJ    := $(patsubst %.cu,$(B)/obj/%.o,$(wildcard $(addsuffix /*.cu,$(GPU_DIRS))))
CUPTI_OBJ  := $(patsubst %.c,$(B)/obj/%.o,$(wildcard cupti/*.c)) \
              $(patsubst %.cpp,$(B)/obj/%.o,$(wildcard cupti/*.cpp))
CPU_PLUGIN := $(B)/libgpulab_cpu.so
PLUGIN     := $(B)/libgpulab_gpu.so

# Tests link the driver's code (not its main) and the CPU baselines directly.
TEST_OBJ := $(filter-out $(B)/obj/src/cli/main.o,$(DRIVER_OBJ)) $(CORE_OBJ) $(FAMILY_OBJ) $(CPU_OBJ)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BIN := $(GPU_TEST_SRC:tests/gpu/%.c=$(B)/tests/gpu/%)
# GPU tests in CUDA link the GPU plugin itself, for the harness's own functions
GPU_TEST_CU  := $(wildcard tests/gpu/test_*.cu)
GPU_TEST_CU_BIN := $(GPU_TEST_CU:tests/gpu/%.cu=$(B)/tests/gpu/%)

H_CORE   := $(wildcard src/core/*.h)
H_DRIVER := $(H_CORE) $(wildcard $(addsuffix /*.h,$(DRIVER_DIRS)))
H_FAMILY := $(H_CORE) $(wildcard experiments/*.h)
H_CPU    := $(H_FAMILY) $(wildcard experiments/cpu/*.h)
H_GPU    := $(H_FAMILY) $(wildcard cupti/*.h) $(wildcard $(addsuffix /*.cuh,$(GPU_DIRS)) $(addsuffix /*.h,$(GPU_DIRS)))

.PHONY: all driver plugin deps deps-build deps-check experiments smoke report test test-gpu bench clean
.DELETE_ON_ERROR:

# Without a CUDA toolkit (no $(NVCC)) the CPU path still builds and is tested: the
# GPU plugin and the .cu test plugins are left out, with a note, and the tests
# that need them say they are skipped (tests/run.sh counts them as such).
HAVE_NVCC := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes)
all: deps-check $(B)/gpulab $(CPU_PLUGIN) openblas \
     $(if $(HAVE_NVCC),plugin $(GPU_TEST_CU_BIN),no-nvcc) $(GPU_TEST_BIN)

.PHONY: no-nvcc
no-nvcc:
	@echo "gpulab: note: no CUDA compiler ($(NVCC)): building the CPU path only (no $(PLUGIN)); the tests that need it are skipped"

driver: $(B)/gpulab $(CPU_PLUGIN)
plugin: $(PLUGIN)

$(B)/gpulab: $(DRIVER_OBJ) $(CORE_OBJ)
	$(CC) -o $@ $^ $(LDLIBS)
	ln -sf $(B)/gpulab gpulab

# Every object sees the headers its folder's README allows (may_call) and is
# rebuilt when one of them changes (may_see).
.SECONDEXPANSION:
$(B)/obj/src/%.o: src/%.c $$(call may_see,src/$$(patsubst %/,%,$$(dir $$*)))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call may_call,$(<D)) -c -o $@ $<

$(B)/obj/experiments/cpu/%.o: experiments/cpu/%.c $$(call may_see,experiments/cpu)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPU_KFLAGS) $(call may_call,$(<D)) -c -o $@ $<

$(B)/obj/experiments/%.o: experiments/%.c $$(call may_see,experiments)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call may_call,$(<D)) -c -o $@ $<

$(B)/obj/experiments/gpu/%.o: experiments/gpu/%.cu $$(call may_see,experiments/gpu/$$(patsubst %/,%,$$(dir $$*)))
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $(call may_call,$(<D)) -c -o $@ $<

$(B)/obj/cupti/%.o: cupti/%.c $$(call may_see,cupti)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call may_call,$(<D)) $(INC_CUPTI) -c -o $@ $<

$(B)/obj/cupti/%.o: cupti/%.cpp $$(call may_see,cupti)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(call may_call,$(<D)) $(INC_CUPTI) -c -o $@ $<

$(CPU_PLUGIN): $(CPU_OBJ) $(FAMILY_OBJ) $(CORE_OBJ)
	$(CC) -shared -Wl,--no-undefined -o $@ $^ -lm -ldl -fopenmp

# OpenBLAS, for the CPU rows openblas and openblas_rect: not linked, loaded at run
# time (experiments/cpu/cpu_openblas.h), first from build/openblas/, where this
# copies the system's library (Debian's libopenblas0-openmp: it runs its threads
# through the same OpenMP runtime, libgomp, as the other CPU baselines) and the
# libraries it needs that the machine a build is carried to may lack. Without
# the package: a note, and the rows look for a system OpenBLAS where they run.
OPENBLAS_LIB ?= /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)/openblas-openmp/libopenblas.so.0
.PHONY: openblas
openblas:
	@sh experiments/cpu/copy_openblas.sh $(OPENBLAS_LIB) $(B)/openblas

# No -lcuda: the CUDA runtime finds the driver itself, so the plugin loads (and
# reports "no CUDA driver") on machines without one.
$(PLUGIN): $(GPU_OBJ) $(CUPTI_OBJ) $(FAMILY_OBJ) $(CORE_OBJ)
	$(NVCC) $(CUDA_ARCH) -shared -Xlinker --no-undefined -o $@ $^ -cudart static -L$(CUDA_HOME)/lib64 -L$(CUPTI_LIB) \
	  -lcublas -lcupti -lnvrtc -Xlinker -rpath,'$$ORIGIN',-rpath,$(CUDA_HOME)/lib64,-rpath,$(CUPTI_LIB) \
	  -ldl -Xcompiler -fopenmp

$(B)/tests/%: tests/%.c tests/t.h $(TEST_OBJ) $(H_CPU) $(H_DRIVER)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_DRIVER) $(INC_CPU) -Itests -o $@ $< $(TEST_OBJ) $(LDLIBS)

# GPU tests are built here with the rest and run on the GPU machine (make test-gpu).
$(B)/tests/gpu/%: tests/gpu/%.c tests/t.h $(TEST_OBJ) $(H_CPU) $(H_DRIVER)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_DRIVER) $(INC_CPU) -Itests -o $@ $< $(TEST_OBJ) $(LDLIBS)

$(B)/tests/gpu/%: tests/gpu/%.cu $(PLUGIN) $(H_GPU)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $(INC_GPU) -o $@ $< $(PLUGIN) -Xlinker -rpath,'$$ORIGIN/../..'

# Users' plugins of the tests (tests/plugins/*.c, *.cu -> build/tests/plugins/*.so),
# built as a user would build one: against src/core/plugin.h only.
TEST_PLUGINS := $(patsubst tests/plugins/%.c,$(B)/tests/plugins/%.so,$(wildcard tests/plugins/*.c)) \
                $(if $(HAVE_NVCC),$(patsubst tests/plugins/%.cu,$(B)/tests/plugins/%.so,$(wildcard tests/plugins/*.cu)))
all: $(TEST_PLUGINS)
$(B)/tests/plugins/%.so: tests/plugins/%.c $(H_CORE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_CORE) -shared -o $@ $<
$(B)/tests/plugins/%.so: tests/plugins/%.cu $(H_CORE)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $(INC_CORE) -shared -o $@ $<

# Stand-ins for system libraries the tests cannot have here (tests/fakes/*.c ->
# build/tests/fakes/lib*.so: NVML), loaded by gpulab only through an environment
# variable that names them (GPULAB_NVML_LIB).
TEST_FAKES := $(patsubst tests/fakes/%.c,$(B)/tests/fakes/lib%.so,$(wildcard tests/fakes/*.c))
all: $(TEST_FAKES)
$(B)/tests/fakes/lib%.so: tests/fakes/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $<

# Debian packages: the build needs SQLite's headers; the report gnuplot; the
# tests both, the sqlite3 shell, and OpenBLAS with patchelf (the openblas rows
# and their copy in build/: without them the build leaves the copy out).
BUILD_PKGS := libsqlite3-dev
DEPS_PKGS  := $(BUILD_PKGS) sqlite3 gnuplot-nox libopenblas0-openmp patchelf
deps:
	@sh tests/deps.sh $(DEPS_PKGS)
deps-build:
	@sh tests/deps.sh $(BUILD_PKGS)
deps-check:
	@sh tests/deps.sh --check $(BUILD_PKGS)

experiments: deps-build all
	./$(B)/gpulab run $(CONFIG) --db $(DB)

smoke: deps-build all
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
	$(CC) $(CFLAGS) $(INC_DRIVER) -c -o $@ $<
.PHONY: FORCE
FORCE:
$(B)/obj/gen/db_sql.o: $(B)/gen/db_sql.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_DRIVER) -c -o $@ $<

# The report's rules (figures, tables, report.md) live with the report.
include report/report.mk
