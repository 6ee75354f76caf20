# What the bench-* lab tests share: which sdl-benchmark builds to run, and running one link's
# rows with each. Sourced after lib.sh.
IFS=, read -ra benches <<<"${SDL_BENCH:-}"
args=(--rounds 5)
if ((${#benches[@]} == 0)); then benches=("$LAB_REPO/.build/debug/sdl-benchmark"); args=(--quick); fi
for bench in "${benches[@]}"; do [ -x "$bench" ] || fail "no $bench: build it (swift build --product sdl-benchmark)"; done

# Runs `sdl-benchmark link LINK` with each build; each must print its three rows a variant.
run_bench() {
    local link=$1 bench rows out
    for bench in "${benches[@]}"; do
        ((${#benches[@]} > 1)) && echo "== $bench"
        out="$work/$link.$(basename "$bench").out"
        "$bench" link "$link" "${args[@]}" | tee "$out" || fail "sdl-benchmark link $link failed ($bench)"
        # An older build compared with a newer one may not know this link yet.
        if grep -q "^usage: " "$out" && ((${#benches[@]} > 1)); then echo "($bench has no $link rows)"; continue; fi
        rows=$(grep -c ' ratio .* to ' "$out")  # a row has its spread; the context-switch lines do not
        [ "$rows" -ge 3 ] && [ $((rows % 3)) = 0 ] || fail "sdl-benchmark link $link printed $rows rows, not three a variant"
    done
}
