/* Fortran programs. The MPI library's Fortran bindings call its C PMPI_
 * functions (Open MPI's every binding: mpi_send_ calls PMPI_Send; MPICH's
 * mpi_f08 bindings for calls without a buffer: PMPI_Init, PMPI_Waitall;
 * MPICH's mpif.h and `use mpi` bindings call the MPI_ names, which the
 * wrappers see), and a Fortran program under Open MPI ran unrecorded.
 * So the recorder interposes the PMPI_ function
 * of every call it records too. Called from a Fortran binding, one goes
 * the way the program's C call would (its wrapper records it); called from
 * anywhere else (the wrappers themselves, the MPI library inside), it goes
 * straight on to the library's own, found with dlsym (RTLD_NEXT).
 *
 * The caller of such a call (the "caller" attribute) is the first frame on
 * the stack outside the recorder and the bindings (ts_rec_program_caller):
 * the return address the wrapper notes is the binding's, or the
 * interposer's. Partitioned calls are not interposed (the recorder
 * provides them itself where the MPI library has none,
 * record-partitioned.c): MPICH 4's mpi_f08 MPI_Pready and MPI_Parrived,
 * which call PMPI_, go unrecorded. Bindings loaded after the first
 * interposed call (dlopen) are not recognised. */
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NEXT */
#include <config.h>

#include "recorder/record-private.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uintptr_t start, end;
} Range;

/* The executable segments of the Fortran bindings and of the recorder,
 * found once (the bindings are loaded with the program). */
typedef struct {
  Range bindings[16], self[4];
  guint n_bindings, n_self;
  uintptr_t self_base;
} Objects;

static Objects objects;
static GOnce found = G_ONCE_INIT;

static gboolean
is_binding (const char *path)
{
  static const char *const names[] = { "libmpi_mpifh", "libmpi_usempi", "libmpichfort",
                                       "libmpifort", "libfmpich" };
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_has_prefix (base, names[i]))
      return TRUE;
  return FALSE;
}

static int
add_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  Objects *o = data;
  gboolean self = o->self_base != 0 && info->dlpi_addr == o->self_base;
  if (!self && !(info->dlpi_name && is_binding (info->dlpi_name)))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
        continue;
      Range r = { info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
      if (self && o->n_self < G_N_ELEMENTS (o->self))
        o->self[o->n_self++] = r;
      else if (!self && o->n_bindings < G_N_ELEMENTS (o->bindings))
        o->bindings[o->n_bindings++] = r;
    }
  return 0;
}

static gpointer
find_objects (gpointer data)
{
  (void) data;
  Dl_info info;
  if (dladdr ((const void *) find_objects, &info))
    objects.self_base = (uintptr_t) info.dli_fbase;
  dl_iterate_phdr (add_object, &objects);
  return NULL;
}

static gboolean
in_ranges (const Range *r, guint n, const void *address)
{
  uintptr_t a = (uintptr_t) address;
  for (guint i = 0; i < n; i++)
    if (a >= r[i].start && a < r[i].end)
      return TRUE;
  return FALSE;
}

static gboolean
from_binding (const void *address)
{
  g_once (&found, find_objects, NULL);
  return in_ranges (objects.bindings, objects.n_bindings, address);
}

gboolean
ts_rec_inside_mpi_layers (const void *address)
{
  return from_binding (address) || in_ranges (objects.self, objects.n_self, address);
}

const void *
ts_rec_program_caller (const void *fallback)
{
  void *frames[16];
  int n = backtrace (frames, G_N_ELEMENTS (frames));
  for (int i = 0; i < n; i++)
    if (!ts_rec_inside_mpi_layers (frames[i]))
      return frames[i];
  return fallback;
}

/* The library's own PMPI_@name, looked up once. */
static void *
next_pmpi (gpointer *slot, const char *name)
{
  void *f = g_atomic_pointer_get (slot);
  if (!f)
    {
      f = dlsym (RTLD_NEXT, name);
      if (!f)
        {
          fprintf (stderr, "tracesim-record: the MPI library has no %s\n", name);
          abort ();
        }
      g_atomic_pointer_set (slot, f);
    }
  return f;
}

/* The calls the wrappers record, as (name without MPI_, parameters,
 * arguments). */
#define TS_REC_INTERPOSED(X) \
  X (Barrier, (MPI_Comm comm), (comm)) \
  X (Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm)) \
  X (Gather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm)) \
  X (Gatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm)) \
  X (Scatter, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm)) \
  X (Scatterv, (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm)) \
  X (Allgather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm)) \
  X (Allgatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm)) \
  X (Alltoall, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm)) \
  X (Alltoallv, (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)) \
  X (Alltoallw, (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)) \
  X (Reduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm), (sbuf, rbuf, count, type, op, root, comm)) \
  X (Allreduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm)) \
  X (Reduce_scatter, (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcounts, type, op, comm)) \
  X (Reduce_scatter_block, (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcount, type, op, comm)) \
  X (Scan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm)) \
  X (Exscan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm)) \
  X (Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req)) \
  X (Ibcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req), (buf, count, type, root, comm, req)) \
  X (Igather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req)) \
  X (Igatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req)) \
  X (Iscatter, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req)) \
  X (Iscatterv, (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req)) \
  X (Iallgather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req)) \
  X (Iallgatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req)) \
  X (Ialltoall, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req)) \
  X (Ialltoallv, (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req)) \
  X (Ialltoallw, (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req)) \
  X (Ireduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, count, type, op, root, comm, req)) \
  X (Iallreduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, count, type, op, comm, req)) \
  X (Ireduce_scatter, (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, rcounts, type, op, comm, req)) \
  X (Ireduce_scatter_block, (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, rcount, type, op, comm, req)) \
  X (Iscan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, count, type, op, comm, req)) \
  X (Iexscan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, count, type, op, comm, req)) \
  X (Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm)) \
  X (Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm), (comm, info, newcomm)) \
  X (Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm), (comm, color, key, newcomm)) \
  X (Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm), (comm, type, key, info, newcomm)) \
  X (Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), (comm, group, newcomm)) \
  X (Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm), (comm, group, tag, newcomm)) \
  X (Cart_create, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *newcomm), (comm, ndims, dims, periods, reorder, newcomm)) \
  X (Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm), (comm, remain_dims, newcomm)) \
  X (Graph_create, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *newcomm), (comm, nnodes, index, edges, reorder, newcomm)) \
  X (Dist_graph_create, (MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *newcomm), (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm)) \
  X (Dist_graph_create_adjacent, (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *newcomm), (comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, newcomm)) \
  X (Comm_free, (MPI_Comm *comm), (comm)) \
  X (Init, (int *argc, char ***argv), (argc, argv)) \
  X (Init_thread, (int *argc, char ***argv, int required, int *provided), (argc, argv, required, provided)) \
  X (Finalize, (void), ()) \
  X (Send, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), (buf, count, type, dest, tag, comm)) \
  X (Bsend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), (buf, count, type, dest, tag, comm)) \
  X (Ssend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), (buf, count, type, dest, tag, comm)) \
  X (Rsend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), (buf, count, type, dest, tag, comm)) \
  X (Recv, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status), (buf, count, type, source, tag, comm, status)) \
  X (Sendrecv, (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status), (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status)) \
  X (Sendrecv_replace, (void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag, MPI_Comm comm, MPI_Status *status), (buf, count, type, dest, stag, source, rtag, comm, status)) \
  X (Isend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Ibsend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Issend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Irsend, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Irecv, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, source, tag, comm, req)) \
  X (Send_init, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Bsend_init, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Ssend_init, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Rsend_init, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req)) \
  X (Recv_init, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req), (buf, count, type, source, tag, comm, req)) \
  X (Start, (MPI_Request *req), (req)) \
  X (Startall, (int n, MPI_Request reqs[]), (n, reqs)) \
  X (Request_free, (MPI_Request *req), (req)) \
  X (Cancel, (MPI_Request *req), (req)) \
  X (Wait, (MPI_Request *req, MPI_Status *status), (req, status)) \
  X (Test, (MPI_Request *req, int *flag, MPI_Status *status), (req, flag, status)) \
  X (Waitall, (int n, MPI_Request reqs[], MPI_Status statuses[]), (n, reqs, statuses)) \
  X (Testall, (int n, MPI_Request reqs[], int *flag, MPI_Status statuses[]), (n, reqs, flag, statuses)) \
  X (Waitany, (int n, MPI_Request reqs[], int *index, MPI_Status *status), (n, reqs, index, status)) \
  X (Testany, (int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status), (n, reqs, index, flag, status)) \
  X (Waitsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]), (n, reqs, outcount, indices, statuses)) \
  X (Testsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]), (n, reqs, outcount, indices, statuses))

#define INTERPOSE(name, params, args)                                                   \
  int P##MPI_##name params                                                              \
  {                                                                                     \
    static gpointer next;                                                               \
    if (from_binding (__builtin_return_address (0)))                                    \
      return MPI_##name args;                                                           \
    int (*pmpi) params;                                                                 \
    *(void **) &pmpi = next_pmpi (&next, "PMPI_" #name);                                \
    return pmpi args;                                                                   \
  }
TS_REC_INTERPOSED (INTERPOSE)
