__aicore__ __attribute__((always_inline)) void runSimpleAdd(__gm__ int64_t* args)
{
    // Unpack arguments
    __gm__ float* x = reinterpret_cast<__gm__ float*>(args[0]);
    __gm__ float* y = reinterpret_cast<__gm__ float*>(args[1]);
    __gm__ float* output = reinterpret_cast<__gm__ float*>(args[2]);

    // Global tensor declarations
    using xShapeDim5 = Shape<1, 1, 1, 128, 64>;
    using xStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using xGlobalType = GlobalTensor<float, xShapeDim5, xStrideDim5>;
    xGlobalType xGlobal(x);

    using yShapeDim5 = Shape<1, 1, 1, 128, 64>;
    using yStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using yGlobalType = GlobalTensor<float, yShapeDim5, yStrideDim5>;
    yGlobalType yGlobal(y);

    using outputShapeDim5 = Shape<1, 1, 1, 128, 64>;
    using outputStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using outputGlobalType = GlobalTensor<float, outputShapeDim5, outputStrideDim5>;
    outputGlobalType outputGlobal(output);

    // Tile type definitions and allocations
    using tile_xType = Tile<TileType::Vec, float, 128, 64, BLayout::RowMajor, -1, -1>;
    tile_xType tile_x(128, 64);
    TASSIGN(tile_x, 0x0);

    using tile_yType = Tile<TileType::Vec, float, 128, 64, BLayout::RowMajor, -1, -1>;
    tile_yType tile_y(128, 64);
    TASSIGN(tile_y, 0x8000);

    using tile_zType = Tile<TileType::Vec, float, 128, 64, BLayout::RowMajor, -1, -1>;
    tile_zType tile_z(128, 64);
    TASSIGN(tile_z, 0x10000);

    // Function body
    TLOAD(tile_x, xGlobal);
    TLOAD(tile_y, yGlobal);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(tile_z, tile_x, tile_y);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outputGlobal, tile_z);
}
