/* What pipeline/run.c and pipeline/first-pass.c share of TsRunShared. */
#ifndef TS_RUN_PRIVATE_H
#define TS_RUN_PRIVATE_H

#include "pipeline/run.h"
#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "model/trace.h"

struct TsRunShared {
  TsTrace *trace;
  TsCalibration *calibration;
  TsWaitStates *original_waits;  /* NULL without wait states */
  gboolean cpu_time;             /* compute taken from the trace's CPU time */
  gboolean cpu_estimated;        /* that CPU time estimated from the nodes' load */
  /* What the MPI calls took of their fair share of the cores, where the CPU
   * time gives it (else NAN): run, left to choose, takes the wall time
   * from TS_RUN_POLLED_SHARE on (first-pass.c, polled()). */
  double calls_fair_share;
};

#endif
