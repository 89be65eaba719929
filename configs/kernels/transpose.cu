// transpose.cu - float transpose of an N x N row-major matrix, out[x][y] = in[y][x],
// as plain __global__ functions for a gpulab kernel section (configs/transpose.conf).
//
// All four kernels share one launch shape: a grid of ceil(N/TILE) x ceil(N/TILE)
// blocks of TILE x BLOCK_ROWS threads; each block covers one TILE x TILE tile and
// each thread handles TILE/BLOCK_ROWS of its rows (j = threadIdx.y, + BLOCK_ROWS, ...).
// Every access is bounds-checked, so N need not be a multiple of TILE.
//
//   copy               out = in with the transpose's read pattern and coalesced
//                      writes: the bandwidth a transpose can hope for (not a transpose).
//   naive              coalesced reads, writes strided by N floats.
//   transpose_tiled    through a TILE x TILE shared tile: coalesced reads and writes,
//                      but the tile is read along a column; with TILE = 32 the 32
//                      threads of a warp hit one bank (32-way conflicts).
//   transpose_padded   the same with a TILE x (TILE+1) tile: the extra column shifts
//                      each row by one bank, so a column read touches 32 banks.
//   (TILE = 16: a warp spans two rows of a 16 x 8 block, so the unpadded column
//   read is 8-way, and the padded tile's write and read are 2-way on one bank.)
//
// copy and naive read TILE and BLOCK_ROWS as macros (`defines = TILE, BLOCK_ROWS`);
// the tiled kernels are templates instantiated by the config's name expressions
// (transpose_tiled<TILE, BLOCK_ROWS>). Their template parameters are named TS and
// ROWS, not TILE and BLOCK_ROWS, because the section also passes those as -D macros.

#if !defined(TILE) || !defined(BLOCK_ROWS)
#error "compile with -DTILE=... -DBLOCK_ROWS=... (config: defines = TILE, BLOCK_ROWS)"
#endif

#if TILE % BLOCK_ROWS != 0
#error "TILE must be a multiple of BLOCK_ROWS"
#endif

extern "C" __global__ void copy(float *out, const float *in, int n)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    if (x >= n)
        return;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (y + j < n) {
            const size_t i = (size_t)(y + j) * n + x;
            out[i] = in[i];
        }
    }
}

extern "C" __global__ void naive(float *out, const float *in, int n)
{
    const int x = blockIdx.x * TILE + threadIdx.x;   // column of in, row of out
    const int y = blockIdx.y * TILE + threadIdx.y;   // row of in, column of out
    if (x >= n)
        return;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (y + j < n)
            out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

// The tile is read along columns: tile[threadIdx.x][...] for consecutive
// threadIdx.x is TS floats apart, i.e. the same bank for every thread of a warp
// when TS = 32.
template <int TS, int ROWS>
__global__ void transpose_tiled(float *out, const float *in, int n)
{
    static_assert(TS % ROWS == 0, "TILE must be a multiple of BLOCK_ROWS");
    __shared__ float tile[TS][TS];

    int x = blockIdx.x * TS + threadIdx.x;
    int y = blockIdx.y * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];

    __syncthreads();

    // the transposed block: block (bx, by) of in becomes block (by, bx) of out
    x = blockIdx.y * TS + threadIdx.x;
    y = blockIdx.x * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Same as transpose_tiled with one padding column: element [r][c] lies in bank
// (r * (TS + 1) + c) mod 32, so the 32 threads reading a column hit 32 banks.
template <int TS, int ROWS>
__global__ void transpose_padded(float *out, const float *in, int n)
{
    static_assert(TS % ROWS == 0, "TILE must be a multiple of BLOCK_ROWS");
    __shared__ float tile[TS][TS + 1];

    int x = blockIdx.x * TS + threadIdx.x;
    int y = blockIdx.y * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];

    __syncthreads();

    x = blockIdx.y * TS + threadIdx.x;
    y = blockIdx.x * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
