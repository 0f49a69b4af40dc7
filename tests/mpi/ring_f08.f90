! The ring of ring.f90 with the mpi_f08 module (tests/test-record-fortran.sh),
! whose bindings call other symbols than mpif.h's: MPICH's call PMPI_Init,
! PMPI_Waitall and the like where `use mpi` calls MPI_Init.
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, left, right, i
  type(MPI_Request) :: requests(2)
  type(MPI_Status) :: statuses(2)
  double precision :: sbuf(1000), rbuf(1000), total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  right = mod(rank + 1, nranks)
  left = mod(rank - 1 + nranks, nranks)
  sbuf = rank
  do i = 1, 3
    call MPI_Irecv(rbuf, 1000, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, requests(1))
    call MPI_Isend(sbuf, 1000, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, requests(2))
    call MPI_Waitall(2, requests, statuses)
    call MPI_Send(sbuf, 10, MPI_DOUBLE_PRECISION, right, 8, MPI_COMM_WORLD)
    call MPI_Recv(rbuf, 10, MPI_DOUBLE_PRECISION, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end do
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, f6.1)', 'sum ', total
  call MPI_Finalize()
end program ring_f08
