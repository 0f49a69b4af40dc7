/* A fault for tests/test-record-again.sh, preloaded after the recorder:
 * OTF2_Archive_GetEvtWriter, the last step of opening the archive, fails
 * (NULL, errno EMFILE) on the rank TS_TEST_FAIL_OPEN_RANK names, as where
 * that rank runs out of file descriptors or memory. By then OTF2's rank 0
 * has made DIR and DIR/traces for all ranks, so the test sees what a failed
 * open leaves behind. Every other call and rank goes to OTF2. Unlike
 * permission bits, root (as CI runs) cannot get past it. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

typedef OTF2_EvtWriter *(*GetEvtWriter) (OTF2_Archive *, OTF2_LocationRef);

OTF2_EvtWriter *
OTF2_Archive_GetEvtWriter (OTF2_Archive *archive, OTF2_LocationRef location)
{
  const char *fail = getenv ("TS_TEST_FAIL_OPEN_RANK");
  /* The rank as the launcher gives it (MPICH's Hydra, Open MPI). */
  const char *rank = getenv ("PMI_RANK");
  if (!rank)
    rank = getenv ("OMPI_COMM_WORLD_RANK");
  if (fail && rank && strcmp (fail, rank) == 0)
    {
      errno = EMFILE;
      return NULL;
    }
  GetEvtWriter next = (GetEvtWriter) dlsym (RTLD_NEXT, "OTF2_Archive_GetEvtWriter");
  return next (archive, location);
}
