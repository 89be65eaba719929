# report/report.mk - the report's make rules, included by the top Makefile:
# `make report [DB=path]` turns the results database into report/out/report.md, the
# LaTeX fragments report/out/tables/*.tex and the figures report/out/figures/*.svg
# and *.png. Every plots/NAME.gp (but style.gp) is a figure, whichever study's
# section (report/studies/*.md) shows it: nothing here names a study or a figure,
# so adding one needs no edit. A figure is redrawn only when its plots/NAME.gp, its
# plots/NAME.sql, plots/style.gp or the database's contents change; figures do not
# depend on each other (make -j draws them in parallel), and they wait for `deps`,
# which installs gnuplot. Must not hold SQL or gnuplot code (plots/ and
# report/tables/ do), know any one study, write outside $(REPORT_OUT) or open $(DB)
# with anything but cp.
#
# `gpulab query` writes to the file it opens (it recreates the views and sets WAL
# mode), so the report never queries $(DB) itself: it copies it (and its -wal file)
# to $(REPORT_OUT)/db/results.db when $(DB) or the path changed, and queries the
# copy; a committed fixture stays untouched. The copy's modification time then
# changes with every query, so figures depend on $(REPORT_OUT)/db/stamp instead: a
# fingerprint of the runs, metrics, sessions and devices
# (report/tables/_fingerprint.sql), rewritten only when it differs.
# REPORT_OUT (default report/out) moves the whole output (the test uses a
# temporary folder).

REPORT_OUT   ?= report/out
GNUPLOT      ?= gnuplot
REPORT_FIGS  := $(sort $(basename $(notdir $(filter-out plots/style.gp,$(wildcard plots/*.gp)))))
REPORT_CSV   := $(REPORT_FIGS:%=$(REPORT_OUT)/data/%.csv)
REPORT_SVG   := $(REPORT_FIGS:%=$(REPORT_OUT)/figures/%.svg)
REPORT_PNG   := $(REPORT_FIGS:%=$(REPORT_OUT)/figures/%.png)
REPORT_SQL   := $(wildcard report/tables/*.sql)
# the study sections, and the configs that name their studies
REPORT_TEXT  := $(wildcard report/studies/*.md) $(wildcard configs/*.conf)
REPORT_DB    := $(REPORT_OUT)/db/results.db
REPORT_PATH  := $(REPORT_OUT)/db/path
REPORT_STAMP := $(REPORT_OUT)/db/stamp
REPORT_FILES := $(REPORT_OUT)/db/files

.PHONY: report figures

report: deps $(B)/gpulab $(REPORT_OUT)/report.md

figures: $(REPORT_SVG) $(REPORT_PNG)

# Only runs when the database is missing.
$(DB):
	@echo "make report: no database $(DB) (run make experiments, or pass DB=path)" >&2
	@exit 1

# Which database the output comes from; rewritten only when DB= names another.
$(REPORT_PATH): FORCE
	@mkdir -p $(dir $@)
	@echo '$(DB)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# Which tables, sections, configs and figures there are; rewritten only when one is
# added or removed, so that removing a study's files redoes report.md too.
$(REPORT_FILES): FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(REPORT_SQL) $(REPORT_TEXT) $(REPORT_FIGS))' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(REPORT_DB): $(DB) $(wildcard $(DB)-wal) $(REPORT_PATH)
	@mkdir -p $(dir $@)
	@rm -f $@ $@-wal $@-shm
	cp '$(DB)' $@
	@if [ -f '$(DB)-wal' ]; then cp '$(DB)-wal' $@-wal; fi

$(REPORT_STAMP): FORCE | $(REPORT_DB) $(B)/gpulab
	@./$(B)/gpulab query -f report/tables/_fingerprint.sql --db $(REPORT_DB) --csv > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(REPORT_OUT)/data/%.csv: plots/%.sql $(REPORT_STAMP) | $(REPORT_DB) $(B)/gpulab
	@mkdir -p $(dir $@)
	./$(B)/gpulab query -f $< --db $(REPORT_DB) --csv > $@.tmp
	@mv $@.tmp $@

# (| deps: with make -j, gnuplot must be installed before the first figure starts)
$(REPORT_OUT)/figures/%.svg: plots/%.gp $(REPORT_OUT)/data/%.csv plots/style.gp | deps
	@mkdir -p $(dir $@)
	$(GNUPLOT) -e "fmt='svg'; datafile='$(word 2,$^)'; outfile='$@.tmp'" $<
	@mv $@.tmp $@

$(REPORT_OUT)/figures/%.png: plots/%.gp $(REPORT_OUT)/data/%.csv plots/style.gp | deps
	@mkdir -p $(dir $@)
	$(GNUPLOT) -e "fmt='png'; datafile='$(word 2,$^)'; outfile='$@.tmp'" $<
	@mv $@.tmp $@

$(REPORT_OUT)/report.md: report/build.sh $(REPORT_SQL) $(REPORT_TEXT) $(REPORT_FILES) $(REPORT_STAMP) \
                         $(REPORT_PATH) $(REPORT_SVG) $(REPORT_PNG) | $(REPORT_DB) $(B)/gpulab
	DB=$(REPORT_DB) DB_NAME='$(DB)' GPULAB=./$(B)/gpulab OUT=$(REPORT_OUT) sh report/build.sh

# the CSVs are intermediate files of the figures, but build.sh reads them too
.SECONDARY: $(REPORT_CSV)
