;; The rasterizer's span loops (Raster.ts), in WebAssembly: the same arithmetic as the JavaScript
;; they replace (IEEE doubles, 1/z stored as float32 rounded to nearest), so the same bytes, with
;; the colour stores overlapping the serial 1/z sum instead of costing bounds-checked stores each.
;; Buffers live in this module's memory (spans.ts lays them out): z, float32 per pixel at byte
;; offset `z`; rgb, 3 bytes per pixel at `rgb`; a static layer's 1/z at `base`.
;; Each function draws pixels i..end (inclusive) of one row, 1/z from w on in steps of d, colour
;; (r, g, b), and returns the 1/z after end. Assemble with `npm run build:wasm` (spansWasm.ts).
(module
  (memory (export "memory") 1)
  ;; 1 once a pixel of testedNearTie came within the tie margin of the layer.
  (global $nearTie (export "nearTie") (mut i32) (i32.const 0))

  ;; Every pixel passes (an untouched chunk): z = w, colour written.
  (func (export "untested") (param $z i32) (param $rgb i32) (param $i i32) (param $end i32)
    (param $w f64) (param $d f64) (param $r i32) (param $g i32) (param $b i32) (result f64)
    (local $o i32)
    (block $done
      (loop $pixel
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (f32.store (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))) (f32.demote_f64 (local.get $w)))
        (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
        (i32.store8 (local.get $o) (local.get $r))
        (i32.store8 offset=1 (local.get $o) (local.get $g))
        (i32.store8 offset=2 (local.get $o) (local.get $b))
        (local.set $w (f64.add (local.get $w) (local.get $d)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel)))
    (local.get $w))

  ;; Depth-tested: a pixel is written where w > its z.
  (func (export "tested") (param $z i32) (param $rgb i32) (param $i i32) (param $end i32)
    (param $w f64) (param $d f64) (param $r i32) (param $g i32) (param $b i32) (result f64)
    (local $a i32) (local $o i32)
    (block $done
      (loop $pixel
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $a (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))))
        (if (f64.gt (local.get $w) (f64.promote_f32 (f32.load (local.get $a))))
          (then
            (f32.store (local.get $a) (f32.demote_f64 (local.get $w)))
            (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
            (i32.store8 (local.get $o) (local.get $r))
            (i32.store8 offset=1 (local.get $o) (local.get $g))
            (i32.store8 offset=2 (local.get $o) (local.get $b))))
        (local.set $w (f64.add (local.get $w) (local.get $d)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel)))
    (local.get $w))

  ;; Depth-tested over a static layer: as `tested`, and $nearTie is set where
  ;; layer·lo <= w <= layer·hi (lo = 1 − TIE, hi = 1 + TIE).
  (func (export "testedNearTie") (param $z i32) (param $rgb i32) (param $base i32) (param $i i32) (param $end i32)
    (param $w f64) (param $d f64) (param $r i32) (param $g i32) (param $b i32) (param $lo f64) (param $hi f64) (result f64)
    (local $a i32) (local $o i32) (local $layer f64)
    (block $done
      (loop $pixel
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $a (i32.shl (local.get $i) (i32.const 2)))
        (local.set $layer (f64.promote_f32 (f32.load (i32.add (local.get $base) (local.get $a)))))
        (if (i32.and (f64.ge (local.get $w) (f64.mul (local.get $layer) (local.get $lo)))
                     (f64.le (local.get $w) (f64.mul (local.get $layer) (local.get $hi))))
          (then (global.set $nearTie (i32.const 1))))
        (local.set $a (i32.add (local.get $z) (local.get $a)))
        (if (f64.gt (local.get $w) (f64.promote_f32 (f32.load (local.get $a))))
          (then
            (f32.store (local.get $a) (f32.demote_f64 (local.get $w)))
            (local.set $o (i32.add (local.get $rgb) (i32.mul (local.get $i) (i32.const 3))))
            (i32.store8 (local.get $o) (local.get $r))
            (i32.store8 offset=1 (local.get $o) (local.get $g))
            (i32.store8 offset=2 (local.get $o) (local.get $b))))
        (local.set $w (f64.add (local.get $w) (local.get $d)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel)))
    (local.get $w))
)
