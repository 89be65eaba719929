/*
 * convsep.cu - separable 2-D convolution: a row pass and a column pass, the
 * filter taps in constant memory (the layout of the classic image-processing
 * sample: set the filter with cudaMemcpyToSymbol, run rows then columns).
 *
 *   nvcc -O3 -o convsep convsep.cu && ./convsep 2048 2048
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef KERNEL_RADIUS
#define KERNEL_RADIUS 8
#endif
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

#define ROWS_BLOCKDIM_X 128
#define COLUMNS_BLOCKDIM_X 32
#define COLUMNS_BLOCKDIM_Y 8

#define checkCudaErrors(call)                                                        \
    do {                                                                             \
        cudaError_t err__ = (call);                                                  \
        if (err__ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err__)); \
            exit(EXIT_FAILURE);                                                      \
        }                                                                            \
    } while (0)

__constant__ float c_Kernel[KERNEL_LENGTH];

void setConvolutionKernel(const float *h_Kernel)
{
    checkCudaErrors(cudaMemcpyToSymbol(c_Kernel, h_Kernel, KERNEL_LENGTH * sizeof(float)));
}

/* One thread per output pixel of a row; the block's span of the row and its
 * halo staged in shared memory (zero outside the image). */
__global__ void convolutionRowsKernel(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    __shared__ float s_Data[ROWS_BLOCKDIM_X + 2 * KERNEL_RADIUS];
    const int x0 = blockIdx.x * ROWS_BLOCKDIM_X;
    const int y = blockIdx.y;
    const float *row = d_Src + (size_t)y * imageW;

    for (int i = threadIdx.x; i < ROWS_BLOCKDIM_X + 2 * KERNEL_RADIUS; i += blockDim.x) {
        const int gx = x0 + i - KERNEL_RADIUS;
        s_Data[i] = (gx >= 0 && gx < imageW) ? row[gx] : 0.0f;
    }
    __syncthreads();

    const int x = x0 + threadIdx.x;
    if (x >= imageW || y >= imageH)
        return;
    float sum = 0.0f;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
        sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.x + KERNEL_RADIUS + j];
    d_Dst[(size_t)y * imageW + x] = sum;
}

/* COLUMNS_BLOCKDIM_X columns, COLUMNS_BLOCKDIM_Y output rows per block; the
 * column strip and its halo in shared memory (one column of padding). */
__global__ void convolutionColumnsKernel(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    __shared__ float s_Data[COLUMNS_BLOCKDIM_Y + 2 * KERNEL_RADIUS][COLUMNS_BLOCKDIM_X + 1];
    const int x = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
    const int y0 = blockIdx.y * COLUMNS_BLOCKDIM_Y;

    for (int i = threadIdx.y; i < COLUMNS_BLOCKDIM_Y + 2 * KERNEL_RADIUS; i += blockDim.y) {
        const int gy = y0 + i - KERNEL_RADIUS;
        s_Data[i][threadIdx.x] =
            (x < imageW && gy >= 0 && gy < imageH) ? d_Src[(size_t)gy * imageW + x] : 0.0f;
    }
    __syncthreads();

    const int y = y0 + threadIdx.y;
    if (x >= imageW || y >= imageH)
        return;
    float sum = 0.0f;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
        sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y + KERNEL_RADIUS + j][threadIdx.x];
    d_Dst[(size_t)y * imageW + x] = sum;
}

void convolutionRowsGPU(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    dim3 blocks((imageW + ROWS_BLOCKDIM_X - 1) / ROWS_BLOCKDIM_X, imageH);
    convolutionRowsKernel<<<blocks, ROWS_BLOCKDIM_X>>>(d_Dst, d_Src, imageW, imageH);
    checkCudaErrors(cudaGetLastError());
}

void convolutionColumnsGPU(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    dim3 blocks((imageW + COLUMNS_BLOCKDIM_X - 1) / COLUMNS_BLOCKDIM_X,
                (imageH + COLUMNS_BLOCKDIM_Y - 1) / COLUMNS_BLOCKDIM_Y);
    dim3 threads(COLUMNS_BLOCKDIM_X, COLUMNS_BLOCKDIM_Y);
    convolutionColumnsKernel<<<blocks, threads>>>(d_Dst, d_Src, imageW, imageH);
    checkCudaErrors(cudaGetLastError());
}

static void convolutionRowsCPU(float *dst, const float *src, const float *k, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0;
            for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
                if (x + j >= 0 && x + j < w)
                    sum += (double)k[KERNEL_RADIUS - j] * src[(size_t)y * w + x + j];
            dst[(size_t)y * w + x] = (float)sum;
        }
}

static void convolutionColumnsCPU(float *dst, const float *src, const float *k, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0;
            for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
                if (y + j >= 0 && y + j < h)
                    sum += (double)k[KERNEL_RADIUS - j] * src[(size_t)(y + j) * w + x];
            dst[(size_t)y * w + x] = (float)sum;
        }
}

int main(int argc, char **argv)
{
    const int imageW = argc > 1 ? atoi(argv[1]) : 2048;
    const int imageH = argc > 2 ? atoi(argv[2]) : 2048;
    const size_t n = (size_t)imageW * imageH;
    float h_Kernel[KERNEL_LENGTH];
    float *h_Input = (float *)malloc(n * sizeof(float));
    float *h_Buffer = (float *)malloc(n * sizeof(float));
    float *h_OutputCPU = (float *)malloc(n * sizeof(float));
    float *h_OutputGPU = (float *)malloc(n * sizeof(float));
    float *d_Input, *d_Buffer, *d_Output;

    srand(200);
    for (int i = 0; i < KERNEL_LENGTH; i++)
        h_Kernel[i] = (float)(rand() % 16);
    for (size_t i = 0; i < n; i++)
        h_Input[i] = (float)(rand() % 16);

    checkCudaErrors(cudaMalloc(&d_Input, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_Buffer, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_Output, n * sizeof(float)));
    setConvolutionKernel(h_Kernel);
    checkCudaErrors(cudaMemcpy(d_Input, h_Input, n * sizeof(float), cudaMemcpyHostToDevice));

    convolutionRowsGPU(d_Buffer, d_Input, imageW, imageH);
    convolutionColumnsGPU(d_Output, d_Buffer, imageW, imageH);
    checkCudaErrors(cudaMemcpy(h_OutputGPU, d_Output, n * sizeof(float), cudaMemcpyDeviceToHost));

    convolutionRowsCPU(h_Buffer, h_Input, h_Kernel, imageW, imageH);
    convolutionColumnsCPU(h_OutputCPU, h_Buffer, h_Kernel, imageW, imageH);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (h_OutputCPU[i] - h_OutputGPU[i]) * (h_OutputCPU[i] - h_OutputGPU[i]);
        den += h_OutputCPU[i] * h_OutputCPU[i];
    }
    double l2 = sqrt(num / den);
    printf("convsep %dx%d radius %d: relative L2 error %.3e: %s\n", imageW, imageH,
           KERNEL_RADIUS, l2, l2 < 1e-6 ? "PASSED" : "FAILED");

    cudaFree(d_Output);
    cudaFree(d_Buffer);
    cudaFree(d_Input);
    free(h_OutputGPU);
    free(h_OutputCPU);
    free(h_Buffer);
    free(h_Input);
    return l2 < 1e-6 ? EXIT_SUCCESS : EXIT_FAILURE;
}
