# report/gen/figures.mk - draws the figures of the generated sections: every
# $(OUT)/gen/plots/NAME.gp that report/gen/generate.sh wrote becomes
# $(OUT)/figures/NAME.svg and .png from the data $(OUT)/data/NAME.csv (its
# $(OUT)/gen/plots/NAME.sql through `gpulab query`), next to the figures of plots/
# that report/report.mk draws. Run by report/build.sh as
#   make -f report/gen/figures.mk GEN_OUT=... GEN_DB=... GEN_GPULAB=... [GEN_GNUPLOT=...]
# with the jobserver of the make that runs the report (or -j of its own), so the
# figures are drawn in parallel. A figure is redrawn only when its script, its SQL,
# the templates or the database's fingerprint ($(OUT)/gen/stamp) change: generate.sh
# rewrites none of them when nothing changed. Must not name a study or a figure.
# (GEN_*: names of their own, so that the DB= and REPORT_OUT= of the make that
# runs the report, which reach this one through MAKEFLAGS, mean nothing here)
GEN_OUT     ?= report/out
GEN_DB      ?= db/results.db
GEN_GPULAB  ?= ./build/gpulab
GEN_GNUPLOT ?= gnuplot
OUT     := $(GEN_OUT)
GEN     := $(OUT)/gen
FIGS    := $(sort $(basename $(notdir $(wildcard $(GEN)/plots/*.gp))))
TEMPLATES := report/gen/figure.gp report/gen/roofline.gp plots/roofline.gp plots/style.gp

.PHONY: all
all: $(FIGS:%=$(OUT)/figures/%.svg) $(FIGS:%=$(OUT)/figures/%.png)

$(OUT)/data/%.csv: $(GEN)/plots/%.sql $(GEN)/stamp
	@mkdir -p $(dir $@)
	$(GEN_GPULAB) query -f $< --db $(GEN_DB) --csv > $@.tmp
	@mv $@.tmp $@

# both formats from one gnuplot, as report/report.mk draws plots/ (reset session between)
$(OUT)/figures/%.svg $(OUT)/figures/%.png: $(GEN)/plots/%.gp $(OUT)/data/%.csv $(TEMPLATES)
	@mkdir -p $(dir $@)
	$(GEN_GNUPLOT) -e "fmt='svg'; datafile='$(word 2,$^)'; outfile='$(OUT)/figures/$*.svg.tmp'" $< \
	    -e "reset session" -e "fmt='png'; datafile='$(word 2,$^)'; outfile='$(OUT)/figures/$*.png.tmp'" $<
	@mv $(OUT)/figures/$*.svg.tmp $(OUT)/figures/$*.svg
	@mv $(OUT)/figures/$*.png.tmp $(OUT)/figures/$*.png

.SECONDARY: $(FIGS:%=$(OUT)/data/%.csv)
