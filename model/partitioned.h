/* MPI-4 partitioned communication in OTF2 (doc/event-model.md).
 *
 * OTF2 3.0 has no partitioned records, so each event of the partitioned
 * event model (seed 000, Table 1) is written as a ParameterUnsignedInt record
 * whose parameter is named after the event and whose value is the request
 * id; the other fields travel in the record's attribute list. Any OTF2 tool
 * reads such traces; tracesim's reader and writer share this table. */
#ifndef TS_PARTITIONED_H
#define TS_PARTITIONED_H

#include <glib.h>

G_BEGIN_DECLS

/* The events, in the order of Table 1; the value is the parameter's name. */
#define TS_PARTITIONED_EVENTS(X) \
  X (PSEND_INIT, "MPI_PSEND_INIT")       /* end of MPI_Psend_init: peer comm tag bytes partitions */ \
  X (PRECV_INIT, "MPI_PRECV_INIT")       /* end of MPI_Precv_init: the same */ \
  X (PREADY, "MPI_PREADY")               /* begin of MPI_Pready: partition */ \
  X (PARRIVED, "MPI_PARRIVED")           /* end of a successful MPI_Parrived: partition */ \
  X (PTESTED, "MPI_PTESTED")             /* end of an unsuccessful MPI_Parrived: partition */ \
  X (PSEND_REQUEST, "MPI_PSEND_REQUEST") /* begin of MPI_Start of a partitioned send */ \
  X (PRECV_REQUEST, "MPI_PRECV_REQUEST") /* begin of MPI_Start of a partitioned receive */ \
  X (PSEND_COMPLETE, "MPI_PSEND_COMPLETE") /* end of the wait/test completing the send */ \
  X (PRECV_COMPLETE, "MPI_PRECV_COMPLETE") /* end of the wait/test completing the receive */

typedef enum {
#define TS_P_ENUM(e, name) TS_P_##e,
  TS_PARTITIONED_EVENTS (TS_P_ENUM)
#undef TS_P_ENUM
  TS_P_N_EVENTS
} TsPartitionedEvent;

/* The attributes carrying the other fields. */
#define TS_PARTITIONED_ATTRIBUTES(X) \
  X (PEER, "MPI_PEER", UINT32)           /* destination (send) or source (receive), rank in comm */ \
  X (COMM, "MPI_COMM", COMM)             /* comm reference */ \
  X (TAG, "MPI_TAG", UINT32) \
  X (BYTES, "MPI_BYTES", UINT64)         /* the whole message */ \
  X (PARTITIONS, "MPI_PARTITIONS", UINT32) \
  X (PARTITION, "MPI_PARTITION", UINT32) /* for PREADY, PARRIVED, PTESTED */

typedef enum {
#define TS_PA_ENUM(e, name, type) TS_PA_##e,
  TS_PARTITIONED_ATTRIBUTES (TS_PA_ENUM)
#undef TS_PA_ENUM
  TS_PA_N_ATTRIBUTES
} TsPartitionedAttribute;

const char *ts_partitioned_event_name (TsPartitionedEvent e);
/* TRUE and @e set if @name is one of the event parameter names. */
gboolean ts_partitioned_event_from_name (const char *name, TsPartitionedEvent *e);
const char *ts_partitioned_attribute_name (TsPartitionedAttribute a);
gboolean ts_partitioned_attribute_from_name (const char *name, TsPartitionedAttribute *a);
/* The attribute's OTF2_Type (OTF2_TYPE_UINT32, ...), as writers declare it. */
guint8 ts_partitioned_attribute_type (TsPartitionedAttribute a);

/* The receive partitions a send partition feeds, and the send partitions a
 * receive partition needs, for @s send and @r receive partitions of one
 * buffer (seed 000, 4.2.2): J(i) = [floor(r i / s), ceil(r (i+1) / s) - 1],
 * I(j) likewise with s and r swapped. Returns the first; *last is set. */
guint ts_partitioned_j (guint i, guint s, guint r, guint *last);
guint ts_partitioned_i (guint j, guint s, guint r, guint *last);

G_END_DECLS

#endif
