/* The events of an OTF2 location as functions, one per record type, with
 * OTF2's reader callback signatures: what the decoder (decode-events.c)
 * consumes, whether OTF2 reads the events from an archive or the archive
 * writer hands over those it logged (ts_archive_feed_next: the predicted
 * execution analysed before it is written, with no OTF2 in between). */
#ifndef TS_EVENT_SINK_H
#define TS_EVENT_SINK_H

#include <otf2/otf2.h>

typedef struct {
  OTF2_EvtReaderCallback_Enter enter;
  OTF2_EvtReaderCallback_Leave leave;
  OTF2_EvtReaderCallback_MpiSend mpi_send;
  OTF2_EvtReaderCallback_MpiRecv mpi_recv;
  OTF2_EvtReaderCallback_MpiIsend mpi_isend;
  OTF2_EvtReaderCallback_MpiIsendComplete mpi_isend_complete;
  OTF2_EvtReaderCallback_MpiIrecvRequest mpi_irecv_request;
  OTF2_EvtReaderCallback_MpiIrecv mpi_irecv;
  OTF2_EvtReaderCallback_MpiRequestTest mpi_request_test;
  OTF2_EvtReaderCallback_MpiRequestCancelled mpi_request_cancelled;
  OTF2_EvtReaderCallback_MpiCollectiveBegin mpi_collective_begin;
  OTF2_EvtReaderCallback_MpiCollectiveEnd mpi_collective_end;
  OTF2_EvtReaderCallback_NonBlockingCollectiveRequest nbc_request;
  OTF2_EvtReaderCallback_NonBlockingCollectiveComplete nbc_complete;
  OTF2_EvtReaderCallback_ParameterUnsignedInt parameter_uint;
  OTF2_EvtReaderCallback_Metric metric;
  OTF2_EvtReaderCallback_ThreadTeamBegin thread_team_begin;
  OTF2_EvtReaderCallback_ThreadTeamEnd thread_team_end;
  OTF2_EvtReaderCallback_ThreadFork thread_fork;
  OTF2_EvtReaderCallback_ThreadJoin thread_join;
  OTF2_EvtReaderCallback_ThreadAcquireLock acquire_lock;
  OTF2_EvtReaderCallback_ThreadReleaseLock release_lock;
} TsEventSink;

#endif
