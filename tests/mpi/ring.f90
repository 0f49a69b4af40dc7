! A ring in Fortran (tests/test-record-fortran.sh): 3 times, each rank
! posts an MPI_Irecv of 1000 doubles from its left neighbour, an MPI_Isend
! of as many to its right one and waits for both (MPI_Waitall), then sends
! 10 doubles right (MPI_Send) and receives 10 from the left (MPI_Recv,
! MPI_STATUS_IGNORE); at the end an MPI_Allreduce of one double with
! MPI_IN_PLACE, whose sum (0 + 1 + ... + P-1) it prints.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, nranks, left, right, i
  integer :: requests(2), statuses(MPI_STATUS_SIZE, 2)
  double precision :: sbuf(1000), rbuf(1000), total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank - 1 + nranks, nranks)
  sbuf = rank
  do i = 1, 3
    call MPI_Irecv(rbuf, 1000, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Isend(sbuf, 1000, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Waitall(2, requests, statuses, ierr)
    call MPI_Send(sbuf, 10, MPI_DOUBLE_PRECISION, right, 8, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 10, MPI_DOUBLE_PRECISION, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end do
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, f6.1)', 'sum ', total
  call MPI_Finalize(ierr)
end program ring
