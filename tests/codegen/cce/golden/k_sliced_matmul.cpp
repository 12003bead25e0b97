__aicore__ __attribute__((always_inline)) void runMm(__gm__ int64_t* args)
{
    // Unpack arguments
    __gm__ half* a = reinterpret_cast<__gm__ half*>(args[0]);
    __gm__ half* b = reinterpret_cast<__gm__ half*>(args[1]);
    __gm__ float* out_0 = reinterpret_cast<__gm__ float*>(args[2]);

    // Global tensor declarations
    using aShapeDim5 = Shape<1, 1, 1, 16, 4096>;
    using aStrideDim5 = Stride<1, 1, 1, 4096, 1>;
    using aGlobalType = GlobalTensor<half, aShapeDim5, aStrideDim5>;
    aGlobalType aGlobal(a);

    using bShapeDim5 = Shape<1, 1, 1, 4096, 32>;
    using bStrideDim5 = Stride<1, 1, 1, 32, 1>;
    using bGlobalType = GlobalTensor<half, bShapeDim5, bStrideDim5>;
    bGlobalType bGlobal(b);

    using out_0ShapeDim5 = Shape<1, 1, 1, 16, 32>;
    using out_0StrideDim5 = Stride<1, 1, 1, 32, 1>;
    using out_0GlobalType = GlobalTensor<float, out_0ShapeDim5, out_0StrideDim5>;
    out_0GlobalType out_0Global(out_0);

    // Tile type definitions and allocations
    using a_matType = Tile<TileType::Mat, half, 16, 1024, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    a_matType a_mat(16, 1024);
    TASSIGN(a_mat, 0x0);

    using a_leftType = Tile<TileType::Left, half, 16, 1024, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    a_leftType a_left(16, 1024);
    TASSIGN(a_left, 0x0);

    using b_matType = Tile<TileType::Mat, half, 1024, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    b_matType b_mat(1024, 32);
    TASSIGN(b_mat, 0x8000);

    using b_rightType = Tile<TileType::Right, half, 1024, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    b_rightType b_right(1024, 32);
    TASSIGN(b_right, 0x0);

    using c_tileType = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    c_tileType c_tile(16, 32);
    TASSIGN(c_tile, 0x0);

    using a_mat_1Type = Tile<TileType::Mat, half, 16, 1024, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    a_mat_1Type a_mat_1(16, 1024);
    TASSIGN(a_mat_1, 0x0);

    using a_left_1Type = Tile<TileType::Left, half, 16, 1024, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    a_left_1Type a_left_1(16, 1024);
    TASSIGN(a_left_1, 0x0);

    using b_mat_1Type = Tile<TileType::Mat, half, 1024, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    b_mat_1Type b_mat_1(1024, 32);
    TASSIGN(b_mat_1, 0x8000);

    using b_right_1Type = Tile<TileType::Right, half, 1024, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    b_right_1Type b_right_1(1024, 32);
    TASSIGN(b_right_1, 0x0);

    using c_accType = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    c_accType c_acc(16, 32);
    TASSIGN(c_acc, 0x0);

    // Function body
    GlobalTensor<half, Shape<1, 1, 1, 16, 1024>, Stride<1, 1, 1, 4096, 1>> aGlobalWindow(a + 0 * 4096 + 0);
    TLOAD(a_mat, aGlobalWindow);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(a_left, a_mat);
    GlobalTensor<half, Shape<1, 1, 1, 1024, 32>, Stride<1, 1, 1, 32, 1>> bGlobalWindow(b + 0 * 32 + 0);
    TLOAD(b_mat, bGlobalWindow);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(b_right, b_mat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(c_tile, a_left, b_right);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    auto c_tile_sum = c_tile;
    for (int64_t kk = 1024; kk < 4096; kk += 1024) {
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        GlobalTensor<half, Shape<1, 1, 1, 16, 1024>, Stride<1, 1, 1, 4096, 1>> aGlobalWindow_1(a + 0 * 4096 + kk);
        TLOAD(a_mat_1, aGlobalWindow_1);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        TMOV(a_left_1, a_mat_1);
        GlobalTensor<half, Shape<1, 1, 1, 1024, 32>, Stride<1, 1, 1, 32, 1>> bGlobalWindow_1(b + kk * 32 + 0);
        TLOAD(b_mat_1, bGlobalWindow_1);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        TMOV(b_right_1, b_mat_1);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        c_acc = c_tile_sum;
        TMATMUL_ACC(c_acc, c_acc, a_left_1, b_right_1);
        c_tile_sum = c_acc;
    }
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(out_0Global, c_tile_sum);
}
