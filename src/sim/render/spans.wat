;; The rasterizer's row loops (Raster.ts), in WebAssembly. 1/z is computed in IEEE doubles and
;; stored as float32 rounded to nearest; along a span it is w + k·d at the span's k-th pixel, so the
;; pixel loops take four pixels per iteration (SIMD) with no sum carried from one to the next.
;; Buffers live in this module's memory (spans.ts lays them out): z, float32 per pixel at byte
;; offset `z`; rgb, 3 bytes per pixel at `rgb`; a static layer's 1/z at `base`; the chunk map, a
;; byte per 16-pixel chunk of a row, at `touched`. The pixel loops draw pixels i..end (inclusive) of
;; one row. Assemble with `npm run build:wasm` (into spansWasm.ts).
(module
  (memory (export "memory") 1)
  ;; 1 once a pixel of testedNearTie came within the tie margin of the layer.
  (global $nearTie (export "nearTie") (mut i32) (i32.const 0))

;; Pixel loops, four pixels per iteration (SIMD). Pixel i of a span whose pixel i0 has 1/z w0 gets
  ;; 1/z = w0 + (i − i0)·d (doubles; lanes as two f64x2), stored as float32; a group reaching past
  ;; `end` writes only its pixels up to `end` (lane mask). Colour is `pat`: r g b four times, then
  ;; four zero bytes (a group's 12 rgb bytes; a blend leaves the 4 bytes after them as they were).
  ;; Loads may read up to 16 bytes past a buffer's last pixel: spans.ts leaves that slack.

  ;; Every pixel passes (an untouched chunk): z = w, colour written.
  (func $untested (param $z i32) (param $rgb i32) (param $i i32) (param $end i32)
    (param $w0 f64) (param $d f64) (param $i0 i32) (param $pat v128)
    (local $wv v128) (local $dv v128) (local $k01 v128) (local $k23 v128) (local $zq v128) (local $m v128)
    (local $a i32) (local $o i32) (local $lo i64) (local $hi i32)
    (local.set $wv (f64x2.splat (local.get $w0)))
    (local.set $dv (f64x2.splat (local.get $d)))
    (local.set $k01 (f64x2.add (f64x2.splat (f64.convert_i32_s (i32.sub (local.get $i) (local.get $i0)))) (v128.const f64x2 0 1)))
    (local.set $k23 (f64x2.add (local.get $k01) (v128.const f64x2 2 2)))
    (local.set $lo (i64x2.extract_lane 0 (local.get $pat)))
    (local.set $hi (i32x4.extract_lane 2 (local.get $pat)))
    (block $done
      (loop $group
        (br_if $done (i32.gt_s (i32.add (local.get $i) (i32.const 3)) (local.get $end)))
        (v128.store (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2)))
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (f64x2.add (local.get $wv) (f64x2.mul (local.get $k01) (local.get $dv))))
            (f32x4.demote_f64x2_zero (f64x2.add (local.get $wv) (f64x2.mul (local.get $k23) (local.get $dv))))))
        (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
        (i64.store (local.get $o) (local.get $lo))
        (i32.store offset=8 (local.get $o) (local.get $hi))
        (local.set $k01 (f64x2.add (local.get $k01) (v128.const f64x2 4 4)))
        (local.set $k23 (f64x2.add (local.get $k23) (v128.const f64x2 4 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $group)))
    (if (i32.le_s (local.get $i) (local.get $end))
      (then ;; 1-3 pixels left
        (local.set $m (i32x4.le_s (i32x4.add (i32x4.splat (local.get $i)) (v128.const i32x4 0 1 2 3)) (i32x4.splat (local.get $end))))
        (local.set $zq (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
          (f32x4.demote_f64x2_zero (f64x2.add (local.get $wv) (f64x2.mul (local.get $k01) (local.get $dv))))
          (f32x4.demote_f64x2_zero (f64x2.add (local.get $wv) (f64x2.mul (local.get $k23) (local.get $dv))))))
        (local.set $a (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))))
        (v128.store (local.get $a) (v128.bitselect (local.get $zq) (v128.load (local.get $a)) (local.get $m)))
        (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
        (v128.store (local.get $o) (v128.bitselect (local.get $pat) (v128.load (local.get $o))
          (i8x16.swizzle (local.get $m) (v128.const i8x16 0 0 0 4 4 4 8 8 8 12 12 12 16 16 16 16)))))))

  ;; Depth-tested: a pixel is written where w > its z (compared as doubles). Over a static layer
  ;; (`hasBase`, its 1/z at `base`) $nearTie is also set where layer·lo <= w <= layer·hi (lo = 1 − TIE, hi = 1 + TIE).
  (func $tested (param $z i32) (param $rgb i32) (param $i i32) (param $end i32)
    (param $w0 f64) (param $d f64) (param $i0 i32) (param $pat v128) (param $hasBase i32) (param $base i32) (param $lo f64) (param $hi f64)
    (local $wv v128) (local $dv v128) (local $k01 v128) (local $k23 v128) (local $w01 v128) (local $w23 v128)
    (local $old v128) (local $m v128) (local $layer v128) (local $l01 v128) (local $l23 v128) (local $a i32) (local $o i32)
    (local.set $wv (f64x2.splat (local.get $w0)))
    (local.set $dv (f64x2.splat (local.get $d)))
    (local.set $k01 (f64x2.add (f64x2.splat (f64.convert_i32_s (i32.sub (local.get $i) (local.get $i0)))) (v128.const f64x2 0 1)))
    (local.set $k23 (f64x2.add (local.get $k01) (v128.const f64x2 2 2)))
    (block $done
      (loop $group
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $w01 (f64x2.add (local.get $wv) (f64x2.mul (local.get $k01) (local.get $dv))))
        (local.set $w23 (f64x2.add (local.get $wv) (f64x2.mul (local.get $k23) (local.get $dv))))
        ;; The group's pixels up to `end`.
        (local.set $m (i32x4.le_s (i32x4.add (i32x4.splat (local.get $i)) (v128.const i32x4 0 1 2 3)) (i32x4.splat (local.get $end))))
        (if (local.get $hasBase)
          (then
            (local.set $layer (v128.load (i32.add (local.get $base) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $l01 (f64x2.promote_low_f32x4 (local.get $layer)))
            (local.set $l23 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $layer) (local.get $layer))))
            (if (v128.any_true (v128.and (local.get $m)
                  (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
                    (v128.and (f64x2.ge (local.get $w01) (f64x2.mul (local.get $l01) (f64x2.splat (local.get $lo))))
                              (f64x2.le (local.get $w01) (f64x2.mul (local.get $l01) (f64x2.splat (local.get $hi)))))
                    (v128.and (f64x2.ge (local.get $w23) (f64x2.mul (local.get $l23) (f64x2.splat (local.get $lo))))
                              (f64x2.le (local.get $w23) (f64x2.mul (local.get $l23) (f64x2.splat (local.get $hi))))))))
              (then (global.set $nearTie (i32.const 1))))))
        (local.set $a (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $old (v128.load (local.get $a)))
        (local.set $m (v128.and (local.get $m)
          (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
            (f64x2.gt (local.get $w01) (f64x2.promote_low_f32x4 (local.get $old)))
            (f64x2.gt (local.get $w23) (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $old) (local.get $old)))))))
        (if (v128.any_true (local.get $m))
          (then
            (v128.store (local.get $a) (v128.bitselect
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (f32x4.demote_f64x2_zero (local.get $w01)) (f32x4.demote_f64x2_zero (local.get $w23)))
              (local.get $old) (local.get $m)))
            (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
            (v128.store (local.get $o) (v128.bitselect (local.get $pat) (v128.load (local.get $o))
              (i8x16.swizzle (local.get $m) (v128.const i8x16 0 0 0 4 4 4 8 8 8 12 12 12 16 16 16 16))))))
        (local.set $k01 (f64x2.add (local.get $k01) (v128.const f64x2 4 4)))
        (local.set $k23 (f64x2.add (local.get $k23) (v128.const f64x2 4 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $group))))

  ;; Background (bg, packed 0x00BBGGRR) and 1/z = 0 for pixels i..end.
  (func $clear (export "clear") (param $z i32) (param $rgb i32) (param $i i32) (param $end i32) (param $bg i32)
    (local $pat v128) (local $lo i64) (local $hi i32) (local $o i32)
    (if (i32.gt_s (local.get $i) (local.get $end)) (then (return)))
    (memory.fill (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))) (i32.const 0)
      (i32.shl (i32.add (i32.sub (local.get $end) (local.get $i)) (i32.const 1)) (i32.const 2)))
    (local.set $pat (call $pattern (local.get $bg)))
    (local.set $lo (i64x2.extract_lane 0 (local.get $pat)))
    (local.set $hi (i32x4.extract_lane 2 (local.get $pat)))
    (block $groups
      (loop $group
        (br_if $groups (i32.gt_s (i32.add (local.get $i) (i32.const 3)) (local.get $end)))
        (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
        (i64.store (local.get $o) (local.get $lo))
        (i32.store offset=8 (local.get $o) (local.get $hi))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $group)))
    (block $done
      (loop $pixel
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
        (i32.store8 (local.get $o) (local.get $bg))
        (i32.store8 offset=1 (local.get $o) (i32.shr_u (local.get $bg) (i32.const 8)))
        (i32.store8 offset=2 (local.get $o) (i32.shr_u (local.get $bg) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel))))

  ;; A colour packed 0x00BBGGRR as a group's rgb bytes: r g b ×4, then four zero bytes.
  (func $pattern (param $packed i32) (result v128)
    (i8x16.swizzle (i32x4.splat (local.get $packed)) (v128.const i8x16 0 1 2 0 1 2 0 1 2 0 1 2 16 16 16 16)))

  ;; For an edge with value e at the row's first pixel and step d per pixel, the first and last
  ;; pixel offsets where e + d·k >= 0 bound the span (rows, inlined per edge). e and d are integers
  ;; below 2^53 and |e/d| is far below 2^40, so the correctly rounded quotient never crosses an
  ;; integer: ceil/floor are exact.

  ;; Every row of one triangle, as Raster.triangle's row loop: the span from the edge functions
  ;; (e·, stepping dx· per pixel and dy· per row), its chunks' lazy clears and their state runs,
  ;; the depth-tested, untested (untouched chunks, when `untested`) or clamped (span ends outside
  ;; [wLo, wHi]) writes, the near-tie check over a layer (`hasBase`), and the chunk map.
  (func (export "rows")
    (param $z i32) (param $rgb i32) (param $base i32) (param $hasBase i32) (param $touched i32)
    (param $W i32) (param $cpr i32) (param $minX i32) (param $maxX i32) (param $minY i32) (param $maxY i32)
    (param $e12 f64) (param $e20 f64) (param $e01 f64)
    (param $dx12 f64) (param $dy12 f64) (param $dx20 f64) (param $dy20 f64) (param $dx01 f64) (param $dy01 f64)
    (param $wRow f64) (param $gB f64) (param $dwx f64) (param $wLo f64) (param $wHi f64) (param $untested i32)
    (param $r i32) (param $g i32) (param $b i32) (param $bg i32) (param $lo f64) (param $hi f64)
    (local $y i32) (local $xsF f64) (local $xeF f64) (local $xs i32) (local $xe i32) (local $w f64) (local $wEnd f64)
    (local $row i32) (local $end i32) (local $c0 i32) (local $cFirst i32) (local $cLast i32) (local $rowEnd i32)
    (local $i i32) (local $c i32) (local $cRun i32) (local $state i32) (local $runLast i32) (local $runEnd i32)
    (local $chunkAt i32) (local $wc f64) (local $layer f64) (local $a i32) (local $o i32) (local $iSpan i32) (local $pat v128)
    (local.set $pat (call $pattern (i32.or (local.get $r) (i32.or (i32.shl (local.get $g) (i32.const 8)) (i32.shl (local.get $b) (i32.const 16))))))
    (local.set $y (local.get $minY))
    (block $rowsDone
      (loop $eachRow
        (br_if $rowsDone (i32.gt_s (local.get $y) (local.get $maxY)))
        (block $nextRow
          ;; The span's offsets from minX: the most of the edges' first ones (and 0), the least of their last ones (and maxX − minX).
          (local.set $xsF (f64.const 0))
          (local.set $xeF (f64.convert_i32_s (i32.sub (local.get $maxX) (local.get $minX))))
          (if (f64.gt (local.get $dx12) (f64.const 0))
            (then (local.set $xsF (f64.max (local.get $xsF) (f64.ceil (f64.div (f64.neg (local.get $e12)) (local.get $dx12))))))
            (else (if (f64.lt (local.get $e12) (f64.const 0)) (then (local.set $xsF (f64.const inf))))))
          (if (f64.lt (local.get $dx12) (f64.const 0))
            (then (local.set $xeF (f64.min (local.get $xeF) (f64.floor (f64.div (local.get $e12) (f64.neg (local.get $dx12)))))))
            (else (if (f64.lt (local.get $e12) (f64.const 0)) (then (if (f64.eq (local.get $dx12) (f64.const 0)) (then (local.set $xeF (f64.const -1))))))))
          (if (f64.gt (local.get $dx20) (f64.const 0))
            (then (local.set $xsF (f64.max (local.get $xsF) (f64.ceil (f64.div (f64.neg (local.get $e20)) (local.get $dx20))))))
            (else (if (f64.lt (local.get $e20) (f64.const 0)) (then (local.set $xsF (f64.const inf))))))
          (if (f64.lt (local.get $dx20) (f64.const 0))
            (then (local.set $xeF (f64.min (local.get $xeF) (f64.floor (f64.div (local.get $e20) (f64.neg (local.get $dx20)))))))
            (else (if (f64.lt (local.get $e20) (f64.const 0)) (then (if (f64.eq (local.get $dx20) (f64.const 0)) (then (local.set $xeF (f64.const -1))))))))
          (if (f64.gt (local.get $dx01) (f64.const 0))
            (then (local.set $xsF (f64.max (local.get $xsF) (f64.ceil (f64.div (f64.neg (local.get $e01)) (local.get $dx01))))))
            (else (if (f64.lt (local.get $e01) (f64.const 0)) (then (local.set $xsF (f64.const inf))))))
          (if (f64.lt (local.get $dx01) (f64.const 0))
            (then (local.set $xeF (f64.min (local.get $xeF) (f64.floor (f64.div (local.get $e01) (f64.neg (local.get $dx01)))))))
            (else (if (f64.lt (local.get $e01) (f64.const 0)) (then (if (f64.eq (local.get $dx01) (f64.const 0)) (then (local.set $xeF (f64.const -1))))))))
          (local.set $xsF (f64.add (f64.convert_i32_s (local.get $minX)) (local.get $xsF)))
          (local.set $xeF (f64.add (f64.convert_i32_s (local.get $minX)) (local.get $xeF)))
          (br_if $nextRow (f64.gt (local.get $xsF) (local.get $xeF)))
          (local.set $xs (i32.trunc_f64_s (local.get $xsF)))
          (local.set $xe (i32.trunc_f64_s (local.get $xeF)))
          (local.set $w (f64.add (local.get $wRow) (f64.mul (local.get $dwx) (f64.convert_i32_s (i32.sub (local.get $xs) (local.get $minX))))))
          (local.set $wEnd (f64.add (local.get $w) (f64.mul (local.get $dwx) (f64.convert_i32_s (i32.sub (local.get $xe) (local.get $xs))))))
          (local.set $row (i32.mul (local.get $y) (local.get $W)))
          (local.set $end (i32.add (local.get $row) (local.get $xe)))
          (local.set $iSpan (i32.add (local.get $row) (local.get $xs)))
          (local.set $c0 (i32.mul (local.get $y) (local.get $cpr)))
          (local.set $cFirst (i32.add (local.get $c0) (i32.shr_s (local.get $xs) (i32.const 4))))
          (local.set $cLast (i32.add (local.get $c0) (i32.shr_s (local.get $xe) (i32.const 4))))
          (local.set $rowEnd (i32.sub (i32.add (local.get $row) (local.get $W)) (i32.const 1)))
          (if (i32.and (local.get $untested)
                (i32.and (i32.and (f64.ge (local.get $w) (local.get $wLo)) (f64.le (local.get $w) (local.get $wHi)))
                         (i32.and (f64.ge (local.get $wEnd) (local.get $wLo)) (f64.le (local.get $wEnd) (local.get $wHi)))))
            (then
              ;; Runs of chunks in one state, left to right (w runs on unbroken).
              (local.set $i (i32.add (local.get $row) (local.get $xs)))
              (local.set $c (local.get $cFirst))
              (block $runsDone
                (loop $eachRun
                  (br_if $runsDone (i32.gt_s (local.get $i) (local.get $end)))
                  (local.set $state (i32.load8_u (i32.add (local.get $touched) (local.get $c))))
                  (local.set $cRun (local.get $c))
                  (block $runEnds
                    (loop $extend
                      (br_if $runEnds (i32.ge_s (local.get $cRun) (local.get $cLast)))
                      (br_if $runEnds (i32.ne (i32.load8_u (i32.add (local.get $touched) (i32.add (local.get $cRun) (i32.const 1)))) (local.get $state)))
                      (local.set $cRun (i32.add (local.get $cRun) (i32.const 1)))
                      (br $extend)))
                  (local.set $runLast (i32.sub (i32.add (local.get $row) (i32.shl (i32.add (i32.sub (local.get $cRun) (local.get $c0)) (i32.const 1)) (i32.const 4))) (i32.const 1)))
                  (if (i32.lt_s (local.get $rowEnd) (local.get $runLast)) (then (local.set $runLast (local.get $rowEnd))))
                  (local.set $runEnd (select (local.get $end) (local.get $runLast) (i32.lt_s (local.get $end) (local.get $runLast))))
                  (if (i32.eqz (local.get $state))
                    (then
                      ;; First reached: the chunks' pixels outside the span start cleared.
                      (local.set $chunkAt (i32.add (local.get $row) (i32.shl (i32.sub (local.get $c) (local.get $c0)) (i32.const 4))))
                      (if (i32.and (i32.eq (local.get $c) (local.get $cFirst)) (i32.lt_s (local.get $chunkAt) (local.get $i)))
                        (then (call $clear (local.get $z) (local.get $rgb) (local.get $chunkAt) (i32.sub (local.get $i) (i32.const 1)) (local.get $bg))))
                      (if (i32.gt_s (local.get $runLast) (local.get $runEnd))
                        (then (call $clear (local.get $z) (local.get $rgb) (i32.add (local.get $runEnd) (i32.const 1)) (local.get $runLast) (local.get $bg))))
                      (call $untested (local.get $z) (local.get $rgb) (local.get $i) (local.get $runEnd) (local.get $w) (local.get $dwx) (local.get $iSpan) (local.get $pat)))
                    (else
                      (call $tested (local.get $z) (local.get $rgb) (local.get $i) (local.get $runEnd) (local.get $w) (local.get $dwx) (local.get $iSpan) (local.get $pat) (i32.const 0) (i32.const 0) (f64.const 0) (f64.const 0))))
                  (local.set $i (i32.add (local.get $runEnd) (i32.const 1)))
                  (local.set $c (i32.add (local.get $cRun) (i32.const 1)))
                  (br $eachRun))))
            (else
              (if (i32.eqz (local.get $hasBase))
                (then
                  (local.set $c (local.get $cFirst))
                  (block $clearsDone
                    (loop $eachChunk
                      (br_if $clearsDone (i32.gt_s (local.get $c) (local.get $cLast)))
                      (if (i32.eqz (i32.load8_u (i32.add (local.get $touched) (local.get $c))))
                        (then
                          (local.set $chunkAt (i32.add (local.get $row) (i32.shl (i32.sub (local.get $c) (local.get $c0)) (i32.const 4))))
                          (local.set $runLast (i32.sub (i32.add (local.get $chunkAt) (i32.const 16)) (i32.const 1)))
                          (if (i32.lt_s (local.get $rowEnd) (local.get $runLast)) (then (local.set $runLast (local.get $rowEnd))))
                          (call $clear (local.get $z) (local.get $rgb) (local.get $chunkAt) (local.get $runLast) (local.get $bg))))
                      (local.set $c (i32.add (local.get $c) (i32.const 1)))
                      (br $eachChunk)))))
              (if (i32.and (i32.and (f64.ge (local.get $w) (local.get $wLo)) (f64.le (local.get $w) (local.get $wHi)))
                           (i32.and (f64.ge (local.get $wEnd) (local.get $wLo)) (f64.le (local.get $wEnd) (local.get $wHi))))
                (then ;; in range: no clamping
                  (call $tested (local.get $z) (local.get $rgb) (local.get $iSpan) (local.get $end) (local.get $w) (local.get $dwx) (local.get $iSpan) (local.get $pat)
                    (local.get $hasBase) (local.get $base) (local.get $lo) (local.get $hi)))
                (else ;; clamped to [wLo, wHi]
                  (local.set $i (i32.add (local.get $row) (local.get $xs)))
                  (block $clampedDone
                    (loop $eachPixel
                      (br_if $clampedDone (i32.gt_s (local.get $i) (local.get $end)))
                      (local.set $wc (f64.add (local.get $w) (f64.mul (local.get $dwx) (f64.convert_i32_s (i32.sub (local.get $i) (local.get $iSpan))))))
                      (local.set $wc (f64.min (f64.max (local.get $wc) (local.get $wLo)) (local.get $wHi)))
                      (local.set $a (i32.shl (local.get $i) (i32.const 2)))
                      (if (local.get $hasBase)
                        (then
                          (local.set $layer (f64.promote_f32 (f32.load (i32.add (local.get $base) (local.get $a)))))
                          (if (i32.and (f64.ge (local.get $wc) (f64.mul (local.get $layer) (local.get $lo)))
                                       (f64.le (local.get $wc) (f64.mul (local.get $layer) (local.get $hi))))
                            (then (global.set $nearTie (i32.const 1))))))
                      (local.set $a (i32.add (local.get $z) (local.get $a)))
                      (if (f64.gt (local.get $wc) (f64.promote_f32 (f32.load (local.get $a))))
                        (then
                          (f32.store (local.get $a) (f32.demote_f64 (local.get $wc)))
                          (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
                          (i32.store8 (local.get $o) (local.get $r))
                          (i32.store8 offset=1 (local.get $o) (local.get $g))
                          (i32.store8 offset=2 (local.get $o) (local.get $b))))
                      (local.set $i (i32.add (local.get $i) (i32.const 1)))
                      (br $eachPixel)))))))
          ;; The span's chunks are reached.
          (local.set $c (local.get $cFirst))
          (block $marked
            (loop $mark
              (br_if $marked (i32.gt_s (local.get $c) (local.get $cLast)))
              (i32.store8 (i32.add (local.get $touched) (local.get $c)) (i32.const 1))
              (local.set $c (i32.add (local.get $c) (i32.const 1)))
              (br $mark))))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (local.set $e12 (f64.add (local.get $e12) (local.get $dy12)))
        (local.set $e20 (f64.add (local.get $e20) (local.get $dy20)))
        (local.set $e01 (f64.add (local.get $e01) (local.get $dy01)))
        (local.set $wRow (f64.add (local.get $wRow) (local.get $gB)))
        (br $eachRow))))
)
