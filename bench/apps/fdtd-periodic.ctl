; meep (Debian's meep-openmpi) for bench/extrapolation.sh: a 2-D periodic
; cell of 16x16 at resolution 20 (k-point 0: no PML, so every chunk costs
; the same), a continuous point source, 800 time steps; meep splits the
; cell into one chunk per rank.
(define-param sx 16)
(define-param sy 16)
(define-param T 20)
(set! geometry-lattice (make lattice (size sx sy no-size)))
(set! k-point (vector3 0 0 0))
(set! resolution 20)
(set! sources (list (make source (src (make continuous-src (frequency 0.15))) (component Ez) (center 0 0))))
(run-until T)
