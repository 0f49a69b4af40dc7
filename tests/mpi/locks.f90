! tests/test-record-locks.sh: two threads take one OpenMP lock 3 times each (omp_set_lock/omp_unset_lock
! from Fortran), inside MPI.
program locks
  use mpi
  use omp_lib
  implicit none
  integer :: ierr, rank, provided, i, total
  integer(omp_lock_kind) :: lck
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call omp_init_lock(lck)
  total = 0
!$omp parallel num_threads(2) private(i)
  do i = 1, 3
    call omp_set_lock(lck)
    total = total + 1
    call omp_unset_lock(lck)
  end do
!$omp end parallel
  call omp_destroy_lock(lck)
  print '(a,i0)', 'taken ', total
  call MPI_Finalize(ierr)
end program locks
